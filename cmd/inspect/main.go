// Command inspect shows what a saved checkpoint of any method holds, as
// text, CSV or Markdown: every method's memory tables (agent.Shower:
// CLIN's items by trial, AriGraph's triplets and episodic vertices, the
// memory stream, L3M+P's graphs, Reflexion's reflections, SAMem's states,
// thoughts, Q-table and pruned pairs), and for SAMem the sizes, the states
// with their best thoughts and Q-values, the states nearest to a query
// text, and the history of a state across the kept checkpoints. See
// `inspect -h`.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/app"
	"github.com/samem/trainer/cmd/internal/cli"
	"github.com/samem/trainer/inspect"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/local"
	"github.com/samem/trainer/llm/openai"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// usage is what -h prints before the flags.
const usage = `usage: inspect [flags] PATH

PATH is a run directory (with -method), a method directory (<run>/clin), a checkpoint
directory (<run>/samem/checkpoints/iter-NNNN), or an online evaluation's directory (with
-method: <run>/eval/valid_seen) or the memory it left (<run>/eval/valid_seen/memory/samem). A SAMem checkpoint shows its states by
value (the Q-table views below); every other method's shows all its memory tables, and
-table names the tables to show of any method's.
`

// options are inspect's flags that are not part of the request.
type options struct {
	out, embedURL string
	sendDims      bool
}

// newFlags defines inspect's flags on a new FlagSet, filling r and o.
// Parsing and inspecting stay in run.
func newFlags(r *inspect.Request, o *options) *flag.FlagSet {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fs.StringVar(&r.Method, "method", "samem", "method directory inside a run directory (samem, an ablation such as samem-no-forgetting, clin, arigraph, memstream, kgplan, reflexion, ...)")
	fs.Func("table", "show this memory `table` of the checkpoint (repeat for several; all: every table); the tables a method shows are listed when a name is unknown", func(v string) error {
		r.Tables = append(r.Tables, v)
		return nil
	})
	fs.StringVar(&r.Sort, "sort", inspect.ByValue, "order of the states: value (best Q), visits (updates) or id")
	fs.IntVar(&r.Top, "top", 20, "list only the first N states, or N rows of each memory table (0: all)")
	fs.StringVar(&r.Query, "query", "", "list the states nearest to this text with their thoughts (embedded with the checkpoint's embedder)")
	fs.IntVar(&r.K, "k", 3, "states listed for -query")
	fs.IntVar(&r.Thoughts, "thoughts", 3, "thoughts listed per state for -query (0: all)")
	fs.Int64Var(&r.State, "state", -1, "follow this state id across the kept checkpoints")
	fs.StringVar(&r.Against, "diff", "", "show only the rows of each memory table that differ from those of the checkpoint at this `path` (any form PATH takes, same method; e.g. the run, for an online evaluation's memory): + a row of PATH's it lacks (added, or a changed row's new value), - a row of its that PATH lacks")
	fs.StringVar(&r.Format, "format", inspect.Text, "output: text, csv (one table: the history with -state, else the -query matches, else the states) or markdown")
	fs.StringVar(&o.out, "o", "", "write to this `file` instead of stdout")
	fs.StringVar(&o.embedURL, "embed-url", "", "embedding server base URL for a checkpoint made with a model (default: $OPENAI_BASE_URL, else OpenAI); the API key comes from $OPENAI_API_KEY")
	fs.BoolVar(&o.sendDims, "send-dimensions", false, "send the checkpoint's embedding dimension to the server (text-embedding-3-*)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "%s\nflags:\n", usage)
		fs.PrintDefaults()
	}
	return fs
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	r := inspect.Request{}
	var o options
	fs := newFlags(&r, &o)
	fs.SetOutput(stderr)
	if err := cli.Parse(fs, args, 0); err != nil {
		return cli.ParseCode(err)
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return cli.ExitUsage
	}
	r.Path = fs.Arg(0)
	r.Show = func(ctx context.Context, ckpt, method string) ([]agent.Table, error) {
		sh, _, err := app.OpenMemory(ctx, runOf(ckpt), method, ckpt)
		if err != nil {
			return nil, err
		}
		return sh.MemoryTables(), nil
	}
	// A checkpoint embedded by a model needs that model for a query; the
	// offline embedder needs nothing. Secrets come from the environment only.
	var localSrv *local.Server
	defer func() {
		if localSrv != nil {
			localSrv.Close()
		}
	}()
	r.NewEmbedder = func(model string, dim int) (llm.Embedder, error) {
		if model == local.EmbedModel && o.embedURL == "" {
			// A checkpoint of -embed local: the same local model embeds
			// the query (no key; the server stops when inspect ends).
			fmt.Fprintf(stderr, "inspect: embedding the query with the local %s\n", model)
			srv, err := local.Start(ctx, local.Embed, local.Options{Log: stderr})
			if err != nil {
				return nil, err
			}
			localSrv = srv
			return openai.New(openai.Config{EmbedModel: model, EmbedDim: dim, EmbedBaseURLs: []string{srv.URL}, ChatBaseURLs: []string{srv.URL}})
		}
		url := o.embedURL
		if url == "" {
			url = os.Getenv("OPENAI_BASE_URL")
		}
		var urls []string
		if url != "" {
			urls = strings.Split(url, ",")
		}
		fmt.Fprintf(stderr, "inspect: embedding the query with %s (dimension %d)\n", model, dim)
		return openai.New(openai.Config{APIKey: os.Getenv("OPENAI_API_KEY"), EmbedModel: model, EmbedDim: dim, EmbedBaseURLs: urls, ChatBaseURLs: urls, SendDimensions: o.sendDims})
	}
	if dir, method, _, err := inspect.ResolveAny(r.Path, r.Method); err == nil {
		if evalDir, ok := inspect.OnlineEval(dir); ok {
			// Said on stderr so that stdout stays comparable with the
			// trained checkpoint's tables.
			fmt.Fprintf(stderr, "inspect: %s is the memory %s left after the online evaluation %s; the trained memory it started from: inspect -method %s %s\n", dir, method, evalDir, method, runOf(dir))
		}
	}
	w := stdout
	var f *os.File
	if o.out != "" {
		var err error
		if f, err = os.Create(o.out); err != nil {
			return cli.Code(err, stderr, "inspect")
		}
		w = f
	}
	err := inspect.Write(ctx, w, r)
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	return cli.Code(err, stderr, "inspect")
}

// runOf is the run directory of a checkpoint directory
// (<run>/<method>/checkpoints/iter-NNNN, or the memory an online evaluation
// left, <run>/eval/<name>/memory/<method>), whose config.json describes the
// method; a checkpoint copied out of its run has none, and the method is
// then built with the defaults.
func runOf(ckpt string) string {
	if evalDir, ok := inspect.OnlineEval(ckpt); ok {
		return filepath.Dir(filepath.Dir(evalDir))
	}
	return filepath.Dir(filepath.Dir(filepath.Dir(filepath.Clean(ckpt))))
}

// Command inspect shows what a saved SAMem checkpoint learned: its sizes,
// the states with their best thoughts and Q-values, the states nearest to
// a query text with their thoughts, and the history of a state across the
// kept checkpoints, as text, CSV or Markdown. See `inspect -h`.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/samem/trainer/cmd/internal/cli"
	"github.com/samem/trainer/inspect"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/local"
	"github.com/samem/trainer/llm/openai"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	r := inspect.Request{}
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&r.Method, "method", "samem", "method directory inside a run directory (samem, or an ablation such as samem-no-forgetting)")
	fs.StringVar(&r.Sort, "sort", inspect.ByValue, "order of the states: value (best Q), visits (updates) or id")
	fs.IntVar(&r.Top, "top", 20, "list only the first N states (0: all)")
	fs.StringVar(&r.Query, "query", "", "list the states nearest to this text with their thoughts (embedded with the checkpoint's embedder)")
	fs.IntVar(&r.K, "k", 3, "states listed for -query")
	fs.IntVar(&r.Thoughts, "thoughts", 3, "thoughts listed per state for -query (0: all)")
	fs.Int64Var(&r.State, "state", -1, "follow this state id across the kept checkpoints")
	fs.StringVar(&r.Format, "format", inspect.Text, "output: text, csv (one table: the history with -state, else the -query matches, else the states) or markdown")
	out := fs.String("o", "", "write to this `file` instead of stdout")
	embedURL := fs.String("embed-url", "", "embedding server base URL for a checkpoint made with a model (default: $OPENAI_BASE_URL, else OpenAI); the API key comes from $OPENAI_API_KEY")
	sendDims := fs.Bool("send-dimensions", false, "send the checkpoint's embedding dimension to the server (text-embedding-3-*)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: inspect [flags] PATH\n\nPATH is a run directory, a method directory (<run>/samem), or a checkpoint directory\n(<run>/samem/checkpoints/iter-NNNN).\n\nflags:\n")
		fs.PrintDefaults()
	}
	if err := cli.Parse(fs, args, 0); err != nil {
		return cli.ParseCode(err)
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return cli.ExitUsage
	}
	r.Path = fs.Arg(0)
	// A checkpoint embedded by a model needs that model for a query; the
	// offline embedder needs nothing. Secrets come from the environment only.
	var localSrv *local.Server
	defer func() {
		if localSrv != nil {
			localSrv.Close()
		}
	}()
	r.NewEmbedder = func(model string, dim int) (llm.Embedder, error) {
		if model == local.EmbedModel && *embedURL == "" {
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
		url := *embedURL
		if url == "" {
			url = os.Getenv("OPENAI_BASE_URL")
		}
		var urls []string
		if url != "" {
			urls = strings.Split(url, ",")
		}
		fmt.Fprintf(stderr, "inspect: embedding the query with %s (dimension %d)\n", model, dim)
		return openai.New(openai.Config{APIKey: os.Getenv("OPENAI_API_KEY"), EmbedModel: model, EmbedDim: dim, EmbedBaseURLs: urls, ChatBaseURLs: urls, SendDimensions: *sendDims})
	}
	w := stdout
	var f *os.File
	if *out != "" {
		var err error
		if f, err = os.Create(*out); err != nil {
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

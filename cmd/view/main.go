// Command view writes a run's static viewer into <run>/viewer: one folder
// of HTML, CSS, JavaScript and data that opens from disk (file://) with no
// server and no network. See `view -h` and docs/VIEWER.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"

	"github.com/samem/trainer/cmd/internal/cli"
	"github.com/samem/trainer/viewer"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// usage is what -h prints before the flags.
const usage = `usage: view [flags]

Writes the viewer of a run directory (its evaluations, training history and records, and every
kept checkpoint's memory) into <run>/viewer; open <run>/viewer/index.html in a browser.
`

// options are view's flags.
type options struct {
	run, out, serve string
	checkpoints     int
}

// newFlags defines view's flags on a new FlagSet, filling o.
func newFlags(o *options) *flag.FlagSet {
	fs := flag.NewFlagSet("view", flag.ContinueOnError)
	fs.StringVar(&o.run, "run", filepath.Join("runs", "default"), "run `directory`")
	fs.StringVar(&o.out, "o", "", "write the viewer into this `folder` (replaced whole) instead of <run>/viewer")
	fs.IntVar(&o.checkpoints, "checkpoints", 0, "show the memory of only the last N kept checkpoints of each method (0: all)")
	fs.StringVar(&o.serve, "serve", "", "after writing, serve the viewer over HTTP at this `address` (e.g. 127.0.0.1:8080) until interrupted")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "%s\nflags:\n", usage)
		fs.PrintDefaults()
	}
	return fs
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o options
	fs := newFlags(&o)
	fs.SetOutput(stderr)
	if err := cli.Parse(fs, args, 0); err != nil {
		return cli.ParseCode(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "view: unexpected argument %q (flags only; see view -h)\n", fs.Arg(0))
		return cli.ExitUsage
	}
	out := o.out
	if out == "" {
		out = filepath.Join(o.run, viewer.Dir)
	}
	st, err := viewer.Write(ctx, viewer.Options{Run: o.run, Out: out, Checkpoints: o.checkpoints})
	if err != nil {
		return cli.Code(err, stderr, "view")
	}
	fmt.Fprintf(stderr, "viewer: %d evaluations, %d evaluated and %d training episodes, %d methods, %d checkpoints; %.1f MB (index %.0f kB)\n",
		st.Evals, st.Episodes, st.TrainEpisodes, st.Methods, st.Checkpoints, float64(st.Bytes)/1e6, float64(st.IndexBytes)/1e3)
	fmt.Fprintln(stdout, filepath.Join(out, "index.html"))
	if o.serve == "" {
		return 0
	}
	ln, err := net.Listen("tcp", o.serve)
	if err != nil {
		return cli.Code(err, stderr, "view")
	}
	fmt.Fprintf(stderr, "serving %s at http://%s/ (interrupt to stop)\n", out, ln.Addr())
	ctx, stop, release := cli.Signals(ctx, stderr)
	defer release()
	srv := &http.Server{Handler: http.FileServer(http.Dir(out))}
	go func() {
		select {
		case <-ctx.Done():
		case <-stop:
		}
		srv.Close()
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return cli.Code(err, stderr, "view")
	}
	return 0
}

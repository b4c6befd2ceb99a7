package app

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/samem/trainer/llm"
)

// Usage files: one usage account per train and per eval, saved in the run
// directory next to what the run produced: one account for train and
// eval, written whether the run succeeded or not.
const (
	// TrainUsageFile is written to <run>/ by train.
	TrainUsageFile = "train-usage.json"
	// EvalUsageFile is written to <run>/eval/<split>/ by eval.
	EvalUsageFile = "usage.json"
)

// Account is the usage of one train or eval run: what the run sent to
// servers in total, and per method and role (purpose) the requests sent,
// answered calls, cache hits, retries, failures, prompt and completion
// tokens, cached tokens, embedding calls and texts, and the estimated cost.
type Account struct {
	Command string `json:"command"` // "train" or "eval"
	Backend string `json:"backend"` // offline, openai, replay
	// Run counts every call of the run (all methods).
	Run llm.Report `json:"run"`
	// Methods holds each method's own account, by method name.
	Methods map[string]llm.Report `json:"methods"`
	// Spent (train) is what every train command into the run directory has
	// spent so far, this one included: what -budget and -max-requests cap.
	Spent *Spent `json:"spent,omitempty"`
}

// newAccount starts an empty account.
func newAccount(command string, cfg Config) *Account {
	return &Account{Command: command, Backend: string(cfg.LLM.Backend), Methods: map[string]llm.Report{}}
}

// String prints the account for the end of a run: the run's total and one
// block per method and role.
func (a *Account) String() string {
	var b strings.Builder
	if a.Backend == string(BackendOffline) {
		b.WriteString("model usage: offline backend, no model requests\n")
	} else {
		fmt.Fprintf(&b, "model usage (%s backend), whole run:\n%s", a.Backend, a.Run)
		names := make([]string, 0, len(a.Methods))
		for n := range a.Methods {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(&b, "%s:\n%s", n, indent(a.Methods[n].String()))
		}
	}
	return b.String()
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return strings.Join(lines, "\n") + "\n"
}

// finish prints the account to w and saves it at path (when path is not
// empty). Errors of the write are returned (the printed account stands).
func (a *Account) finish(w io.Writer, path string) error {
	fmt.Fprint(w, a.String())
	if path == "" {
		return nil
	}
	if err := writeJSON(path, a); err != nil {
		return fmt.Errorf("usage account: %w", err)
	}
	fmt.Fprintf(w, "usage: %s\n", path)
	return nil
}

// trainUsagePath is where train saves its account.
func trainUsagePath(cfg Config) string { return filepath.Join(cfg.Run, TrainUsageFile) }

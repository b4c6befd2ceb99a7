package app

import (
	"fmt"
	"io"
	"sync"

	"github.com/schollz/progressbar/v3"

	"github.com/samem/trainer/runner"
)

// Progress reports a run on stderr: a progress bar per batch when stderr is
// a terminal, and otherwise a plain line per batch (progressbar writes
// carriage-return frames that make one endless line in a log;
// ../shared/DEPENDENCIES.md).
type Progress struct {
	w     io.Writer
	tty   bool
	mu    sync.Mutex
	bar   *progressbar.ProgressBar
	won   int
	label string
}

// NewProgress reports on w; tty says whether w is a terminal.
func NewProgress(w io.Writer, tty bool) *Progress { return &Progress{w: w, tty: tty} }

// Begin implements runner.Progress.
func (p *Progress) Begin(label string, n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.won, p.label = 0, label
	if !p.tty {
		return
	}
	p.bar = progressbar.NewOptions(n,
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionSetDescription(label),
		progressbar.OptionShowCount(),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionThrottle(100_000_000), // 0.1 s
	)
}

// Done implements runner.Progress.
func (p *Progress) Done(ep runner.Episode) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ep.Outcome.Won {
		p.won++
	}
	if p.bar != nil {
		p.bar.Describe(fmt.Sprintf("%s (%d won)", p.label, p.won))
		_ = p.bar.Add(1)
	}
}

// End implements runner.Progress.
func (p *Progress) End(summary string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		_ = p.bar.Finish()
		p.bar = nil
	}
	fmt.Fprintln(p.w, summary)
}

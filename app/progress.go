package app

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/runner"
)

// DefaultProgressEvery is how often a batch in progress is reported when
// stderr is not a terminal (-progress-every).
const DefaultProgressEvery = 30 * time.Second

// Progress reports a run on stderr: a progress bar per batch when stderr is
// a terminal, and otherwise plain lines (progressbar writes carriage-return
// frames that make one endless line in a log; ../shared/DEPENDENCIES.md):
// one at every tenth of the batch and one at least every Every while the
// batch runs, each with the episodes done, won and
// errored, the elapsed and estimated remaining time, and the model
// requests, tokens, estimated cost and reply-parse counts so far.
type Progress struct {
	w   io.Writer
	tty bool
	// Meter, when not nil, is the method's usage account, quoted in lines.
	Meter *llm.Meter
	// Every is the longest silence in a log while a batch runs; 0 means
	// DefaultProgressEvery, a negative value no timed lines.
	Every time.Duration
	// Now and Ticker are the clock (tests set them); nil: the real one.
	Now    func() time.Time
	Ticker func(d time.Duration) (ticks <-chan time.Time, stop func())

	mu                   sync.Mutex
	bar                  *progressbar.ProgressBar
	label                string
	n, done, won, errors int
	tenths               int // tenths of the batch already reported
	began                time.Time
	stopTick             func()
}

// NewProgress reports on w; tty says whether w is a terminal.
func NewProgress(w io.Writer, tty bool) *Progress { return &Progress{w: w, tty: tty} }

func (p *Progress) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

// Begin implements runner.Progress.
func (p *Progress) Begin(label string, n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopTicker()
	p.label, p.n, p.done, p.won, p.errors, p.tenths = label, n, 0, 0, 0, 0
	p.began = p.now()
	if p.tty {
		p.bar = progressbar.NewOptions(n,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription(label),
			progressbar.OptionShowCount(),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionThrottle(100_000_000), // 0.1 s
		)
		return
	}
	every := p.Every
	if every == 0 {
		every = DefaultProgressEvery
	}
	if every < 0 {
		return
	}
	tick := p.Ticker
	if tick == nil {
		tick = func(d time.Duration) (<-chan time.Time, func()) {
			t := time.NewTicker(d)
			return t.C, t.Stop
		}
	}
	ticks, stop := tick(every)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-ticks:
				p.mu.Lock()
				p.line()
				p.mu.Unlock()
			case <-quit:
				return
			}
		}
	}()
	p.stopTick = func() {
		close(quit)
		stop()
		// The ticker goroutine takes p.mu: wait for it without holding it.
		p.mu.Unlock()
		wg.Wait()
		p.mu.Lock()
	}
}

// stopTicker ends the timed lines of the batch; p.mu is held.
func (p *Progress) stopTicker() {
	if p.stopTick != nil {
		f := p.stopTick
		p.stopTick = nil
		f()
	}
}

// Done implements runner.Progress.
func (p *Progress) Done(ep runner.Episode) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	switch {
	case ep.Outcome.Err != "":
		p.errors++
	case ep.Outcome.Won:
		p.won++
	}
	if p.bar != nil {
		p.bar.Describe(fmt.Sprintf("%s (%d won, %d errored)", p.label, p.won, p.errors))
		_ = p.bar.Add(1)
		return
	}
	if p.n > 0 && p.done*10/p.n > p.tenths {
		p.tenths = p.done * 10 / p.n
		if p.done < p.n { // the end of the batch has its own line
			p.line()
		}
	}
}

// line prints where the batch stands; p.mu is held.
func (p *Progress) line() {
	if p.tty || p.label == "" {
		return
	}
	elapsed := p.now().Sub(p.began)
	eta := "unknown"
	if p.done > 0 {
		eta = (elapsed / time.Duration(p.done) * time.Duration(p.n-p.done)).Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "%s: %d/%d episodes, %d won, %d errored, %s elapsed, ETA %s%s\n",
		p.label, p.done, p.n, p.won, p.errors, elapsed.Round(time.Second), eta, usageLine(p.Meter))
}

// usageLine is ", 420 requests sent, 35 cache hits, 1.2M tokens sent, 1.3M
// tokens consumed, $0.0300, replies 300 (5 repaired, 2 unusable)" for a
// meter that saw requests or replies, else "" (the words of docs/COST.md).
func usageLine(m *llm.Meter) string {
	if m == nil {
		return ""
	}
	t := m.Report().Total
	if t.Requests == 0 && t.CacheHits == 0 && t.Replies == 0 {
		return ""
	}
	s := fmt.Sprintf(", %d requests sent, %d cache hits, %s tokens sent, %s tokens consumed, $%.4f", t.Requests, t.CacheHits, llm.FormatCount(t.SentTokens()), llm.FormatCount(t.ConsumedTokens()), t.CostUSD)
	if t.Replies > 0 {
		s += fmt.Sprintf(", replies %d (%d repaired, %d unusable, fallback %.0f%%)", t.Replies, t.Repaired, t.Unusable, 100*t.FallbackShare())
	}
	return s
}

// End implements runner.Progress.
func (p *Progress) End(summary string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopTicker()
	if p.bar != nil {
		_ = p.bar.Finish()
		p.bar = nil
	}
	p.label = ""
	fmt.Fprintln(p.w, summary+usageLine(p.Meter))
}

package app

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/runner"
)

// ErrBudget is wrapped by the error of Train when it stopped, with a
// checkpoint, before -budget or -max-requests would be crossed (exit code
// 3). The same command with a higher cap goes on from that checkpoint.
var ErrBudget = errors.New("stopped before the cap")

// Spent is what training has spent in a run directory over all the train
// commands run into it (kept in train-usage.json): the requests sent, their
// cost at -prices, and the episodes played. -budget and -max-requests cap
// these, so that a run stopped by its cap goes on under a higher one.
type Spent struct {
	Requests int64   `json:"requests"`
	CostUSD  float64 `json:"cost_usd"`
	Episodes int64   `json:"episodes"`
}

func (s Spent) add(o Spent) Spent {
	return Spent{Requests: s.Requests + o.Requests, CostUSD: s.CostUSD + o.CostUSD, Episodes: s.Episodes + o.Episodes}
}

// spentBefore reads what earlier train commands spent in cfg.Run: the
// Spent of its train-usage.json, or, for an account written before Spent
// was kept, that command's own total.
func spentBefore(cfg Config) (Spent, error) {
	var a Account
	err := readJSON(trainUsagePath(cfg), &a)
	if errors.Is(err, fs.ErrNotExist) {
		return Spent{}, nil
	}
	if err != nil {
		return Spent{}, fmt.Errorf("usage account: %w", err)
	}
	s := Spent{Requests: a.Run.Total.Requests, CostUSD: a.Run.Total.CostUSD}
	if a.Spent != nil {
		s = *a.Spent
	}
	if s.Requests < 0 || s.Episodes < 0 || !(s.CostUSD >= 0) || math.IsInf(s.CostUSD, 0) {
		return Spent{}, fmt.Errorf("usage account %s: spent %+v is not a spending (delete the file to count from 0)", trainUsagePath(cfg), s)
	}
	return s, nil
}

// BudgetError is the refusal of the next episode: it would cross a cap.
type BudgetError struct {
	Flag       string  // "budget" or "max-requests"
	Cap, Spent float64 // the cap and what the run directory has spent
	Next       float64 // the next episode's estimate
}

func (e *BudgetError) Error() string {
	f := func(x float64) string {
		if e.Flag == "budget" {
			return fmt.Sprintf("$%.4f", x)
		}
		return fmt.Sprintf("%.0f requests", x)
	}
	return fmt.Sprintf("%v: %s spent in this run directory of -%s %s, and the next episode would take about %s; run again with a higher -%s to go on",
		ErrBudget, f(e.Spent), e.Flag, f(e.Cap), f(e.Next), e.Flag)
}

// Unwrap makes errors.Is(err, ErrBudget) true.
func (e *BudgetError) Unwrap() error { return ErrBudget }

// spendGate admits a method's next episode only when what the run
// directory has spent, with the episodes running and the next one each at
// the cost estimated from this method's episodes so far, stays within the
// caps. The estimate is the costliest episode so far (with several
// workers, the most spent between two episode ends), never below the mean.
// Before any episode of the method has ended it estimates from earlier
// commands' episodes when they are known, and otherwise plays one episode
// at a time until one has ended.
type spendGate struct {
	maxUSD float64
	maxReq int64
	before Spent      // earlier train commands
	run    *llm.Meter // this command, every method
	method *llm.Meter

	mu             sync.Mutex
	ended          int64     // this method's episodes ended in this command
	last           llm.Stats // the method's account at the last end
	worstUSD       float64
	worstReq       float64
	meanUSD, meanR float64
}

// episodeEnded updates the estimate; the runner's progress calls it.
func (g *spendGate) episodeEnded() {
	m := g.method.Report().Total
	g.mu.Lock()
	defer g.mu.Unlock()
	g.ended++
	g.worstUSD = max(g.worstUSD, m.CostUSD-g.last.CostUSD)
	g.worstReq = max(g.worstReq, float64(m.Requests-g.last.Requests))
	g.meanUSD, g.meanR = m.CostUSD/float64(g.ended), float64(m.Requests)/float64(g.ended)
	g.last = m
}

func (g *spendGate) admit(running int) error {
	t := g.run.Report().Total
	usd := g.before.CostUSD + t.CostUSD
	req := float64(g.before.Requests + t.Requests)
	g.mu.Lock()
	ended := g.ended
	estUSD, estReq := max(g.worstUSD, g.meanUSD), max(g.worstReq, g.meanR)
	g.mu.Unlock()
	switch {
	case ended > 0: // from this method's episodes
	case g.before.Episodes > 0:
		estUSD, estReq = g.before.CostUSD/float64(g.before.Episodes), float64(g.before.Requests)/float64(g.before.Episodes)
	case running > 0:
		return runner.ErrWait // the first episode tells what one costs
	}
	next := float64(running + 1)
	for _, c := range []struct {
		flag                  string
		limit, spent, perEach float64
	}{{"budget", g.maxUSD, usd, estUSD}, {"max-requests", float64(g.maxReq), req, estReq}} {
		if c.limit <= 0 || c.spent+next*c.perEach <= c.limit {
			continue
		}
		if running > 0 {
			return runner.ErrWait // the running ones may cost less
		}
		return &BudgetError{Flag: c.flag, Cap: c.limit, Spent: c.spent, Next: c.perEach}
	}
	return nil
}

// countingProgress counts the episodes that end, and tells the gate.
type countingProgress struct {
	runner.Progress
	n    *atomic.Int64
	gate *spendGate // nil: no caps
}

func (c countingProgress) Done(ep runner.Episode) {
	c.n.Add(1)
	if c.gate != nil {
		c.gate.episodeEnded()
	}
	c.Progress.Done(ep)
}

// budgetNote is the line train prints when it runs under a cap.
func budgetNote(cfg Config, before Spent) string {
	s := "caps:"
	if cfg.Budget > 0 {
		s += fmt.Sprintf(" -budget $%.4f ($%.4f spent in %s before this command)", cfg.Budget, before.CostUSD, filepath.Clean(cfg.Run))
	}
	if cfg.MaxRequests > 0 {
		s += fmt.Sprintf(" -max-requests %d (%d sent before this command)", cfg.MaxRequests, before.Requests)
	}
	return s
}

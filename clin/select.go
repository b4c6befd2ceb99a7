package clin

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"github.com/samem/trainer/envbridge"
	replyfmt "github.com/samem/trainer/internal/reply"
	"github.com/samem/trainer/llm"
)

// PurposeSelect is the accounting name of the memory selection call.
const PurposeSelect = "clin.select"

// Selector chooses the memory items the controller sees (seed 004 Sec.
// 3.3: "Selection is itself done with a separate query to the LLM,
// prompting it to list relevant memory items, with the full memory S and the
// task included in that prompt").
type Selector interface {
	// Select returns the 0-based indices of the relevant items, in order.
	Select(ctx context.Context, task envbridge.Task, items []Abstraction) ([]int, error)
}

// SelectMessages renders the selection prompt: the task and the full memory.
func SelectMessages(task envbridge.Task, items []Abstraction) ([]llm.Message, error) {
	d := struct {
		Goal      string
		Learnings []string
	}{Goal: task.Goal}
	for _, a := range items {
		d.Learnings = append(d.Learnings, a.String())
	}
	return messages("select", d)
}

var reItemNumber = regexp.MustCompile(`\d+`)

// ParseSelection reads the item numbers of a selection reply: every integer
// in 1..n, first mention kept, returned as 0-based indices in the order
// given. "none" or a reply with no number selects nothing.
func ParseSelection(reply string, n int) []int {
	reply, _, _ = replyfmt.Strip(reply) // never numbers from the reasoning
	var out []int
	seen := map[int]bool{}
	for _, s := range reItemNumber.FindAllString(reply, -1) {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 || v > n || seen[v] {
			continue
		}
		seen[v] = true
		out = append(out, v-1)
	}
	return out
}

// LLMSelector is Selector on a chat model.
type LLMSelector struct {
	Chat        llm.Chatter
	Temperature float64
}

// Select implements Selector.
func (s *LLMSelector) Select(ctx context.Context, task envbridge.Task, items []Abstraction) ([]int, error) {
	msgs, err := SelectMessages(task, items)
	if err != nil {
		return nil, err
	}
	req := llm.Request{Purpose: PurposeSelect, Messages: msgs, Temperature: s.Temperature, Schema: SelectSchema}
	var sel []int
	_, err = replyfmt.Ask(ctx, s.Chat, req, 0, llm.Skipped, func(a replyfmt.Answer) (bool, error) {
		var ok, repaired bool
		sel, repaired, ok = ParseSelectAnswer(a, len(items))
		if !ok {
			return repaired, errNoItems
		}
		return repaired, nil
	})
	if errors.Is(err, replyfmt.ErrUnusable) {
		// The controller sees no memory this trial (skipped).
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", PurposeSelect, err)
	}
	return sel, nil
}

var reNone = regexp.MustCompile(`(?i)\bnone\b`)

// ParseSelectAnswer reads a selection answer: the JSON's "learning_ids"
// when the server was asked for the schema and answered with it (an empty
// list selects nothing), else the text (ParseSelection). ok is false for a
// text that names no item and does not say "none".
func ParseSelectAnswer(a replyfmt.Answer, n int) (sel []int, repaired, ok bool) {
	var v struct {
		IDs []int `json:"learning_ids"`
	}
	if a.Structured && replyfmt.Decode(a.Text, &v) {
		seen := map[int]bool{}
		for _, id := range v.IDs {
			if id >= 1 && id <= n && !seen[id] {
				seen[id] = true
				sel = append(sel, id-1)
			}
		}
		return sel, false, true
	}
	sel = ParseSelection(a.Text, n)
	_, repaired = replyfmt.Clean(a.Text)
	return sel, repaired, len(sel) > 0 || reNone.MatchString(a.Text)
}

// selected returns the items the controller sees this step. With a
// Selector (the model path), the selection is made once per trial, since its
// input (the task and the full memory) does not change within a trial; the
// items keep their memory order. Without one (offline, or
// Config.SelectByEmbedding), the TopK items most similar to the task and the
// observation (selectItems).
func (e *episode) selected(ctx context.Context, query string) ([]Abstraction, error) {
	if e.m.sel == nil || e.m.cfg.SelectByEmbedding {
		return e.m.selectItems(ctx, e.memory, query)
	}
	if e.shown == nil && len(e.memory) == 0 {
		e.shown = []Abstraction{}
	}
	if e.shown == nil {
		idx, err := e.m.sel.Select(ctx, e.start.Task, e.memory)
		if err != nil {
			return nil, fmt.Errorf("clin: select memory: %w", err)
		}
		keep := make([]bool, len(e.memory))
		for _, i := range idx {
			keep[i] = true
		}
		e.shown = []Abstraction{}
		for i, a := range e.memory {
			if keep[i] {
				e.shown = append(e.shown, a)
			}
		}
	}
	return e.shown, nil
}

// Package forget is SAMem's forgetting step (seed 002 Sec. 3.2, "Forgetting
// mechanism"): when a state has more than five thoughts with a non-zero
// Q-value, its lowest-valued thought is checked for logical validity (an LLM
// with the prompt of Fig. 16, or package forget/offline's rules); an invalid one is
// softly pruned (Q set to 0), and empty state rows and thought columns are
// then removed from the table together with their clusters.
package forget

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"strings"
	"text/template"

	replyfmt "github.com/samem/trainer/internal/reply"
	"github.com/samem/trainer/llm"
)

// Checker judges whether a thought is a logically valid derivation from a state.
type Checker interface {
	Check(ctx context.Context, state, thought string) (valid bool, err error)
}

//go:embed prompts/*.tmpl prompts/*.schema.json
var promptFS embed.FS

var prompts = template.Must(template.ParseFS(promptFS, "prompts/*.tmpl"))

// Schema is the JSON schema of the checker's structured answer
// ({"is_valid": true}), beside its prompts.
var Schema = replyfmt.LoadSchema(promptFS, "prompts/check.schema.json", "check")

// Purpose is the accounting name of the checker's model calls.
const Purpose = "check"

// ErrUnparsable is returned when a checker reply has no "is_valid: True|False".
var ErrUnparsable = errors.New("reply has no is_valid verdict")

// LLM is the model-backed logical checker (Fig. 16).
type LLM struct{ chat llm.Chatter }

// NewLLM returns a checker that asks chat.
func NewLLM(chat llm.Chatter) *LLM { return &LLM{chat: chat} }

// Check implements Checker. A verdict the model does not give within the
// budget of internal/reply (cut off, empty once its reasoning is out, or
// unreadable) keeps the thought: valid, counted as skipped (seed 002 Sec.
// 3.2 prunes only what the checker judged invalid). Only a failed call (the
// client's error after its retries) is an error: Forgetter.Run then stops
// with the prunes made so far applied, and training commits what it learned
// and stops with the error (runner.Train).
func (c *LLM) Check(ctx context.Context, state, thought string) (bool, error) {
	msgs, err := Messages(state, thought)
	if err != nil {
		return false, err
	}
	req := llm.Request{Purpose: Purpose, Messages: msgs, Temperature: 0, MaxTokens: 20, Schema: Schema}
	var v bool
	_, err = replyfmt.Ask(ctx, c.chat, req, 0, llm.Skipped, func(a replyfmt.Answer) (bool, error) {
		var repaired bool
		var err error
		v, repaired, err = ParseAnswer(a)
		return repaired, err
	})
	if errors.Is(err, replyfmt.ErrUnusable) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("check: %w", err)
	}
	return v, nil
}

// ParseAnswer reads a verdict: the JSON's "is_valid" when the server was
// asked for the schema and answered with it, else the text (ParseVerdict;
// repaired when the normaliser had to undo decoration).
func ParseAnswer(a replyfmt.Answer) (valid, repaired bool, err error) {
	var j struct {
		Valid *bool `json:"is_valid"`
	}
	if a.Structured && replyfmt.Decode(a.Text, &j) && j.Valid != nil {
		return *j.Valid, false, nil
	}
	v, err := ParseVerdict(a.Text)
	_, repaired = replyfmt.Clean(a.Text)
	return v, repaired, err
}

// Messages renders the checker's prompt.
func Messages(state, thought string) ([]llm.Message, error) {
	var sys, user bytes.Buffer
	if err := prompts.ExecuteTemplate(&sys, "check.tmpl", nil); err != nil {
		return nil, fmt.Errorf("render check.tmpl: %w", err)
	}
	if err := prompts.ExecuteTemplate(&user, "user.tmpl", struct{ State, Thought string }{state, thought}); err != nil {
		return nil, fmt.Errorf("render user.tmpl: %w", err)
	}
	return []llm.Message{
		{Role: "system", Content: strings.TrimSpace(sys.String())},
		{Role: "user", Content: strings.TrimSpace(user.String())},
	}, nil
}

// ParseVerdict reads "is_valid: True|False" from a reply, tolerating letter
// case, markdown, quotes, "is valid", "=" for ":", yes/no and surrounding
// prose. The first verdict wins. A reply without one is ErrUnparsable.
func ParseVerdict(reply string) (bool, error) {
	s := strings.ToLower(strings.NewReplacer("*", "", "`", "", "\"", "", "'", "", "_", " ").Replace(reply))
	for {
		i := strings.Index(s, "is valid")
		if i < 0 {
			break
		}
		rest := strings.TrimLeft(s[i+len("is valid"):], " \t")
		if len(rest) > 0 && (rest[0] == ':' || rest[0] == '=') {
			rest = strings.TrimLeft(rest[1:], " \t<[(")
			switch {
			case strings.HasPrefix(rest, "true"), strings.HasPrefix(rest, "yes"):
				return true, nil
			case strings.HasPrefix(rest, "false"), strings.HasPrefix(rest, "no"):
				return false, nil
			}
		}
		s = s[i+len("is valid"):]
	}
	return false, fmt.Errorf("check: reply %q: %w", truncate(reply, 80), ErrUnparsable)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

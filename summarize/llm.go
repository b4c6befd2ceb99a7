package summarize

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"strings"
	"text/template"

	"github.com/samem/trainer/envbridge"
	replyfmt "github.com/samem/trainer/internal/reply"
	"github.com/samem/trainer/llm"
)

//go:embed prompts/*.tmpl prompts/*.schema.json
var promptFS embed.FS

var prompts = template.Must(template.ParseFS(promptFS, "prompts/*.tmpl"))

// Schema is the JSON schema of the summariser's structured answer
// ({"summary": "..."}), beside its prompts.
var Schema = replyfmt.LoadSchema(promptFS, "prompts/summary.schema.json", "summary")

// Purpose is the accounting name of the summariser's model calls.
const Purpose = "summarize"

// DefaultMaxHistory is how many earlier steps the prompt carries: 0, the
// whole history, as Eq. 2 summarises Obs_{0:t}. A bound (samem.Config's
// SummaryHistory, -summary-history) keeps the last steps only.
const DefaultMaxHistory = 0

// LLM is the model-backed summariser (seed 002 Eq. 2, prompts Fig. 12).
type LLM struct {
	chat llm.Chatter
	// MaxHistory bounds the earlier steps put in the prompt; 0 (the
	// default) keeps them all.
	MaxHistory int
	// MaxTokens bounds the reply; default 150.
	MaxTokens int
}

// NewLLM returns a summariser that asks chat.
func NewLLM(chat llm.Chatter) *LLM {
	return &LLM{chat: chat, MaxHistory: DefaultMaxHistory, MaxTokens: 150}
}

// Begin implements Summarizer.
func (s *LLM) Begin(t envbridge.Task, style envbridge.Style) Session {
	return &llmSession{cfg: s, goal: t.Goal, style: style}
}

type Turn struct{ Action, Text string }

type llmSession struct {
	cfg     *LLM
	goal    string
	style   envbridge.Style
	history []Turn
}

// Summarize implements Session.
func (s *llmSession) Summarize(ctx context.Context, action string, obs envbridge.Observation) (string, error) {
	msgs, err := Messages(s.style, s.goal, s.history, action, obs.Text)
	if err != nil {
		return "", err
	}
	// Jericho-style games summarise the current observation only (seed 002
	// Appendix A): their history is long and the current text suffices.
	if s.style != envbridge.StyleFiction {
		s.history = append(s.history, Turn{Action: action, Text: obs.Text})
		if n := s.cfg.MaxHistory; n > 0 && len(s.history) > n {
			s.history = s.history[len(s.history)-n:]
		}
	}
	req := llm.Request{Purpose: Purpose, Messages: msgs, Temperature: 0, MaxTokens: s.cfg.MaxTokens, Schema: Schema}
	var state string
	_, err = replyfmt.Ask(ctx, s.cfg.chat, req, 0, llm.FellBack, func(a replyfmt.Answer) (repaired bool, err error) {
		state, repaired, err = ParseAnswer(a)
		return repaired, err
	})
	if errors.Is(err, replyfmt.ErrUnusable) {
		// No usable summary within the budget: the state is the raw
		// observation, SAMem's "w/o situation processing" form (Table 2).
		return Fallback(obs), nil
	}
	if err != nil {
		return "", fmt.Errorf("summarize: %w", err)
	}
	return state, nil
}

// Fallback is the state of an observation no usable summary was given for:
// the observation itself, as Raw makes it.
func Fallback(obs envbridge.Observation) string {
	s, _ := rawSession{}.Summarize(context.Background(), "", obs)
	return s
}

// ParseAnswer reads a summariser's answer: the "summary" of its JSON when
// the server was asked for the schema and answered with it, else the text
// (ParseReplyRepaired); the summary is read the same way in both cases.
func ParseAnswer(a replyfmt.Answer) (string, bool, error) {
	var v struct {
		Summary string `json:"summary"`
	}
	if a.Structured && replyfmt.Decode(a.Text, &v) {
		return ParseReplyRepaired(v.Summary)
	}
	return ParseReplyRepaired(a.Text)
}

// Messages renders the summariser's prompt: the style's system prompt and a
// user message with the goal, the earlier steps and the current observation.
func Messages(style envbridge.Style, goal string, history []Turn, action, current string) ([]llm.Message, error) {
	name := systemTemplate(style)
	var sys, user bytes.Buffer
	if err := prompts.ExecuteTemplate(&sys, name, nil); err != nil {
		return nil, fmt.Errorf("render %s: %w", name, err)
	}
	data := struct {
		Goal            string
		History         []Turn
		Action, Current string
	}{goal, history, action, current}
	if err := prompts.ExecuteTemplate(&user, "user.tmpl", data); err != nil {
		return nil, fmt.Errorf("render user.tmpl: %w", err)
	}
	return []llm.Message{
		{Role: "system", Content: strings.TrimSpace(sys.String())},
		{Role: "user", Content: strings.TrimSpace(user.String())},
	}, nil
}

func systemTemplate(style envbridge.Style) string {
	switch style {
	case envbridge.StyleScience:
		return "science.tmpl"
	case envbridge.StyleFiction:
		return "fiction.tmpl"
	default:
		return "household.tmpl"
	}
}

// ParseReply extracts the summary from a model reply: a leading label such
// as "Summary:" and surrounding quotes or code fences are dropped, white space
// is folded and the result is bounded by MaxStateLen. An empty result is
// ErrEmptySummary.
func ParseReply(reply string) (string, error) {
	s, _, err := ParseReplyRepaired(reply)
	return s, err
}

// ParseReplyRepaired is ParseReply that also says whether the reply needed
// repair: a fence (with its language tag), a chat preamble or closing
// remark, an emphasised label, quotes, or a JSON object around the summary
// (internal/reply; none of these may end up inside a state).
func ParseReplyRepaired(reply string) (string, bool, error) {
	s, repaired := replyfmt.Clean(reply)
	if v, ok := replyfmt.JSONString(s, "summary", "state", "situation"); ok {
		s, repaired = v, true
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if v, ok := replyfmt.Label(l, "summary of the current situation", "summary", "state", "situation"); ok {
			rest := append([]string{v}, lines[i+1:]...)
			s, repaired = strings.Join(rest, "\n"), true
			break
		}
	}
	s = fold(s)
	if u, changed := replyfmt.Unquote(s); changed && u != "" {
		// Keep the summary's own final full stop: only quotes count.
		if t := strings.Trim(strings.TrimSpace(s), "`\"'*_“”‘’"); t != strings.TrimSpace(s) {
			s, repaired = t, true
		}
	}
	s = Clip(strings.TrimSpace(s), MaxStateLen)
	if s == "" {
		return "", repaired, fmt.Errorf("summarize: reply %q: %w", truncate(reply, 80), ErrEmptySummary)
	}
	return s, repaired, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

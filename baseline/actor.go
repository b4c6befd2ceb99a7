package baseline

import (
	"bytes"
	"cmp"
	"context"
	"embed"
	"fmt"
	"strings"
	"text/template"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	replyfmt "github.com/samem/trainer/internal/reply"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/summarize"
	"github.com/samem/trainer/thought"
)

//go:embed prompts/*.tmpl prompts/*.schema.json
var promptFS embed.FS

// ReflectionSchema is the JSON schema of Reflexion's structured answer
// ({"reflection": "..."}), beside its prompts. The running summary uses
// summarize.Schema, the actors thought.ThoughtActionSchema.
var ReflectionSchema = replyfmt.LoadSchema(promptFS, "prompts/reflection.schema.json", "reflection")

var prompts = template.Must(template.New("").
	Funcs(template.FuncMap{"inc": func(i int) int { return i + 1 }}).
	ParseFS(promptFS, "prompts/*.tmpl"))

// Deps are the models a baseline uses.
type Deps struct {
	// Chat is the language model; nil selects Offline's roles.
	Chat llm.Chatter
	// Embed maps a proposed action onto the admissible list when it is not
	// an exact match (actions.MatchAdmissible); nil: exact matches only.
	Embed llm.Embedder
	// Offline are the rule-based roles that stand in for the model when
	// Chat is nil (package baseline/offline's Roles gives them all); a
	// baseline built without a model and without its roles is refused
	// with ErrConfig.
	Offline Offline
}

// Offline are the roles the baselines run on without a model.
type Offline struct {
	// Summarizer and Thinker are the summary baseline's: SAMem's offline
	// summariser and thinker.
	Summarizer summarize.Summarizer
	Thinker    thought.Thinker
	// History is the actor of the full-history and Reflexion baselines,
	// with Reflexion's reflection on a failed trial.
	History HistoryActor
}

// HistoryActor starts the offline actor of one full-history or Reflexion
// episode.
type HistoryActor interface {
	// Begin starts an episode shown the stored reflections (Reflexion's;
	// none for the full-history baseline).
	Begin(s agent.Start, reflections []string) HistorySession
}

// HistorySession is one episode of an offline history actor. It sees every
// observation and action of the episode, as the model's actor does.
type HistorySession interface {
	// Act decides the next step from the latest observation.
	Act(ctx context.Context, obs envbridge.Observation) (agent.Decision, error)
	// Observe is told what the decided action led to.
	Observe(action, text string)
	// Reflect is the reflection on the episode as a failed trial, "" when
	// it has nothing to say.
	Reflect() string
}

// ActorConfig tunes the LLM actor shared by the baselines. Zero fields take
// the defaults.
type ActorConfig struct {
	// MaxAttempts bounds the model calls of one step: the first answer plus
	// retries with feedback when its action is not admissible; default
	// thought.DefaultMaxAttempts (3), as SAMem's thinker.
	MaxAttempts int `json:"max_attempts,omitempty"`
	// MaxTokens bounds a reply; default 200.
	MaxTokens int `json:"max_tokens,omitempty"`
	// Temperature of the calls; default 0, so that methods compared on one
	// model decide repeatably. The application sets it from -temperature.
	Temperature float64 `json:"-"`
}

func (c ActorConfig) withDefaults() ActorConfig {
	c.MaxAttempts = cmp.Or(c.MaxAttempts, thought.DefaultMaxAttempts)
	c.MaxTokens = cmp.Or(c.MaxTokens, 200)
	return c
}

func (c ActorConfig) valid() bool {
	return c.MaxAttempts >= 0 && c.MaxTokens >= 0 && c.Temperature >= 0 && c.Temperature <= 2
}

// Step is one entry of an episode's history: the action taken (empty for the
// first observation) and the observation it led to.
type Step struct {
	Action string
	Text   string
}

// actorView is what the LLM actor is shown at one step. The baselines differ only
// in which of Reflections, Summary and History they fill.
type actorView struct {
	Goal string
	// Reflections are lessons from earlier failed trials (reflexion).
	Reflections []string
	// Summary is the running summary of the episode (summary).
	Summary string
	// History is the episode before the current observation (fullhistory,
	// reflexion), and Omitted the number of its steps left out to respect
	// the history bound.
	History []Step
	Omitted int
	// Current is the latest action and the observation it led to.
	Current    Step
	Admissible []string
}

// actorMessages renders the actor's prompt: the style's system prompt and a
// user message with the view.
func actorMessages(style envbridge.Style, v actorView) ([]llm.Message, error) {
	sys := struct {
		PutAction     string
		HasAdmissible bool
	}{thought.PutAction(v.Admissible), v.Admissible != nil}
	s, err := render(systemTemplate(style), sys)
	if err != nil {
		return nil, err
	}
	v.Current.Text = strings.TrimSpace(v.Current.Text)
	u, err := render("actor.tmpl", v)
	if err != nil {
		return nil, err
	}
	return []llm.Message{{Role: "system", Content: s}, {Role: "user", Content: u}}, nil
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

func render(name string, data any) (string, error) {
	var b bytes.Buffer
	if err := prompts.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("render %s: %w", name, err)
	}
	return strings.TrimSpace(b.String()), nil
}

// actor is the LLM-backed actor: a ReAct-style "Thought: / Action:" reply
// (seed 002 Appendix D.2's format), asked, parsed and mapped onto the
// admissible list as SAMem's thinker does (thought.Asker).
type actor struct {
	chat    llm.Chatter
	emb     llm.Embedder
	cfg     ActorConfig
	purpose string
}

func (a *actor) decide(ctx context.Context, style envbridge.Style, v actorView) (thought.Decision, error) {
	msgs, err := actorMessages(style, v)
	if err != nil {
		return thought.Decision{}, err
	}
	ask := thought.Asker{Chat: a.chat, Embedder: a.emb, Purpose: a.purpose, Temperature: a.cfg.Temperature, MaxTokens: a.cfg.MaxTokens, MaxAttempts: max(1, a.cfg.MaxAttempts)}
	return ask.Ask(ctx, msgs, v.Admissible)
}

// window bounds a history to at most n steps: the first (the opening
// observation, which describes the place and often the task) and the last
// n-1. It returns the kept steps and how many were left out; n <= 0 keeps
// everything.
func window(h []Step, n int) ([]Step, int) {
	if n <= 0 || len(h) <= n {
		return h, 0
	}
	if n == 1 {
		return h[:1], len(h) - 1
	}
	out := make([]Step, 0, n)
	out = append(out, h[0])
	out = append(out, h[len(h)-(n-1):]...)
	return out, len(h) - n
}

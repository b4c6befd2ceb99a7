package thought

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"text/template"

	"github.com/samem/trainer/actions"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/internal/fold"
	replyfmt "github.com/samem/trainer/internal/reply"
	"github.com/samem/trainer/llm"
)

//go:embed prompts/*.tmpl prompts/*.schema.json
var promptFS embed.FS

var prompts = template.Must(template.ParseFS(promptFS, "prompts/*.tmpl"))

// The JSON schemas of the thinker's structured answers, beside its prompts:
// the thought alone (the first call of the two-call pipeline), the action
// alone (its second call) and both (the one-call pipeline and the
// baselines' actors).
var (
	ThoughtSchema       = replyfmt.LoadSchema(promptFS, "prompts/thought.schema.json", "thought")
	ActionSchema        = replyfmt.LoadSchema(promptFS, "prompts/action.schema.json", "action")
	ThoughtActionSchema = replyfmt.LoadSchema(promptFS, "prompts/thought_action.schema.json", "thought_action")
)

// Purpose is the accounting name of the thinker's model calls.
const Purpose = "think"

// DefaultMaxAttempts bounds the model calls for one step: the first answer
// plus retries with feedback when its action is not admissible.
const DefaultMaxAttempts = 3

// ErrNoThought is returned when a reply has no "Thought:" and no usable text.
var ErrNoThought = errors.New("reply has no thought")

// Config holds the model-backed thinker's settings. The zero value of a
// field means its default (Resolved).
type Config struct {
	// MaxAttempts bounds the calls per step; default DefaultMaxAttempts.
	MaxAttempts int `json:"max_attempts,omitempty"`
	// Temperature of the calls; default 0 (the harness compares methods on
	// the same model, so decisions should be repeatable). The application
	// sets it from -temperature.
	Temperature float64 `json:"-"`
	// MaxTokens bounds a reply; default DefaultMaxTokens.
	MaxTokens int `json:"max_tokens,omitempty"`
	// OneCall asks for the thought and the action in one call that also
	// sees the observation and the admissible actions (this project's
	// earlier pipeline, kept as an option). Default: two calls, the thought
	// from the state, then the action (seed 002 Eq. 3; twoCallSession).
	OneCall bool `json:"one_call"`
}

// DefaultMaxTokens bounds a thinker's reply.
const DefaultMaxTokens = 200

// Resolved is the configuration with its defaults made explicit.
func (c Config) Resolved() Config {
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = DefaultMaxAttempts
	}
	if c.MaxTokens <= 0 {
		c.MaxTokens = DefaultMaxTokens
	}
	return c
}

// LLM is the model-backed thinker.
type LLM struct {
	chat llm.Chatter
	emb  llm.Embedder
	Config
}

// NewLLM returns a thinker that asks chat and matches actions with emb
// (emb may be nil: exact matches only), with the default Config.
func NewLLM(chat llm.Chatter, emb llm.Embedder) *LLM {
	return NewLLMWith(chat, emb, Config{})
}

// NewLLMWith is NewLLM with the settings of cfg (zero fields: defaults).
func NewLLMWith(chat llm.Chatter, emb llm.Embedder, cfg Config) *LLM {
	return &LLM{chat: chat, emb: emb, Config: cfg.Resolved()}
}

// Begin implements Thinker.
func (l *LLM) Begin(t envbridge.Task, style envbridge.Style, _ *rand.Rand) Session {
	if !l.OneCall {
		return &twoCallSession{cfg: l, goal: t.Goal, style: style}
	}
	return &llmSession{cfg: l, goal: t.Goal, style: style}
}

type llmSession struct {
	cfg   *LLM
	goal  string
	style envbridge.Style
}

// Think implements Session (see Asker.Ask).
func (s *llmSession) Think(ctx context.Context, in Input) (Decision, error) {
	msgs, err := Messages(s.style, s.goal, in)
	if err != nil {
		return Decision{}, err
	}
	a := Asker{Chat: s.cfg.chat, Embedder: s.cfg.emb, Purpose: Purpose, Temperature: s.cfg.Temperature, MaxTokens: s.cfg.MaxTokens, MaxAttempts: s.cfg.MaxAttempts}
	return a.Ask(ctx, msgs, in.Obs.Admissible)
}

// Asker asks a model for a "Thought: ... / Action: ..." reply and maps the
// action onto the admissible list. SAMem's thinker and the baselines' actors
// share it.
type Asker struct {
	Chat        llm.Chatter
	Embedder    llm.Embedder // nil: exact matches only
	Purpose     string
	Temperature float64
	MaxTokens   int
	MaxAttempts int // default DefaultMaxAttempts
	// Schema is the structured answer asked for (nil: ThoughtActionSchema);
	// with an admissible list its "action" is limited to it by an enum
	// (replyfmt.WithChoices).
	Schema *llm.Schema
}

// Ask sends msgs, parses the reply and matches its action
// (actions.MatchAdmissible); on a miss it tells the model and asks again, up
// to MaxAttempts replies with an action. When every one misses, the last
// proposed action is returned unmatched and the environment answers it in
// its own words ("Nothing happens."). A reply it cannot use (cut off, empty once its
// reasoning is out, or with neither thought nor action) is asked again
// apart from that budget, up to internal/reply's DefaultAttempts calls;
// after those the decision has no thought and no action (the environment
// answers the empty action), or the last proposed one. Only a failed call
// is an error.
func (a Asker) Ask(ctx context.Context, msgs []llm.Message, admissible []string) (Decision, error) {
	attempts := a.MaxAttempts
	if attempts <= 0 {
		attempts = DefaultMaxAttempts
	}
	schema := a.Schema
	if schema == nil {
		schema = ThoughtActionSchema
	}
	schema = replyfmt.WithChoices(schema, "action", admissible)
	base := llm.Request{Purpose: a.Purpose, Messages: append([]llm.Message(nil), msgs...), Temperature: a.Temperature, MaxTokens: a.MaxTokens, Schema: schema}
	cur := base
	var last Decision
	calls, misses, unusable := 0, 0, 0
	for {
		calls++
		ans, err := replyfmt.Get(ctx, a.Chat, cur)
		if err != nil && !Unusable(err) {
			return Decision{}, fmt.Errorf("%s: %w", a.Purpose, err)
		}
		var th, act string
		var repaired bool
		if err == nil {
			th, act, repaired, err = ParseAnswer(ans)
		}
		if err != nil {
			unusable++
			if unusable < replyfmt.DefaultAttempts {
				llm.NoteUnusable(ctx, a.Purpose, llm.AskedAgain)
				cur = replyfmt.Again(base, unusable, err)
				continue
			}
			// The last proposed action, unmatched, or none.
			llm.NoteUnusable(ctx, a.Purpose, llm.Skipped)
			last.Attempts = calls
			return last, nil
		}
		last = Decision{Thought: th, Action: act, Attempts: calls}
		match, _, ok, err := actions.MatchAdmissible(ctx, a.Embedder, act, admissible)
		if err != nil {
			return Decision{}, fmt.Errorf("%s: %w", a.Purpose, err)
		}
		if ok {
			last.Action, last.Matched = match, true
			llm.NoteParsed(ctx, a.Purpose, repaired)
			return last, nil
		}
		misses++
		if misses >= attempts {
			// The unmatched action goes to the environment as it is.
			llm.NoteUnusable(ctx, a.Purpose, llm.Skipped)
			return last, nil
		}
		llm.NoteUnusable(ctx, a.Purpose, llm.AskedAgain)
		var fb bytes.Buffer
		if err := prompts.ExecuteTemplate(&fb, "retry.tmpl", struct {
			Action string
			Empty  bool
		}{act, act == ""}); err != nil {
			return Decision{}, fmt.Errorf("render retry.tmpl: %w", err)
		}
		// The model's answer goes back without its reasoning.
		base.Messages = append(base.Messages,
			llm.Message{Role: "assistant", Content: ans.Text},
			llm.Message{Role: "user", Content: strings.TrimSpace(fb.String())})
		cur = base
	}
}

// Unusable reports an error of internal/reply that says a reply was cut
// off or empty: the model answered, and the role asks again or falls back.
func Unusable(err error) bool {
	return errors.Is(err, replyfmt.ErrCutOff) || errors.Is(err, replyfmt.ErrEmpty)
}

// ParseAnswer reads a thought and an action from an answer: the JSON's
// "thought" and "action" when the server was asked for a schema and
// answered with it (the action then read like any reply's: one line,
// quotes removed), else the text (ParseReplyRepaired). A reply with
// neither is ErrNoThought.
func ParseAnswer(a replyfmt.Answer) (thought, action string, repaired bool, err error) {
	var v struct {
		Thought string `json:"thought"`
		Action  string `json:"action"`
	}
	if !a.Structured || !replyfmt.Decode(a.Text, &v) {
		return ParseReplyRepaired(a.Text)
	}
	thought = strings.Join(strings.Fields(v.Thought), " ")
	if len(thought) > 1000 {
		thought = thought[:1000]
	}
	action, repaired = replyfmt.Unquote(firstLine(v.Action))
	if thought == "" && action == "" {
		return "", "", repaired, fmt.Errorf("reply %q: %w", truncate(a.Text, 80), ErrNoThought)
	}
	return thought, action, repaired, nil
}

// Messages renders the thinker's prompt for one step.
func Messages(style envbridge.Style, goal string, in Input) ([]llm.Message, error) {
	var sys, user bytes.Buffer
	if err := systemPrompt(&sys, style, in.Obs.Admissible, false); err != nil {
		return nil, err
	}
	data := struct {
		Goal, State, Observation, Guide string
		GuideIsAction                   bool
		Admissible                      []string
	}{goal, in.State, strings.TrimSpace(in.Obs.Text), in.Guide, in.GuideIsAction, in.Obs.Admissible}
	if err := prompts.ExecuteTemplate(&user, "user.tmpl", data); err != nil {
		return nil, fmt.Errorf("render user.tmpl: %w", err)
	}
	return []llm.Message{
		{Role: "system", Content: strings.TrimSpace(sys.String())},
		{Role: "user", Content: strings.TrimSpace(user.String())},
	}, nil
}

// systemPrompt renders the thinker's system prompt of style (seed 002
// Appendix D.2, Fig. 13-15); thoughtOnly asks for the thought alone (the
// first call of the two-call pipeline, Eq. 3).
func systemPrompt(b *bytes.Buffer, style envbridge.Style, admissible []string, thoughtOnly bool) error {
	name := "household.tmpl"
	switch style {
	case envbridge.StyleScience:
		name = "science.tmpl"
	case envbridge.StyleFiction:
		name = "fiction.tmpl"
	}
	data := struct {
		PutAction     string
		HasAdmissible bool
		ThoughtOnly   bool
		Templates     []envbridge.ActionTemplate
	}{PutAction(admissible), admissible != nil, thoughtOnly, envbridge.Templates(style)}
	if err := prompts.ExecuteTemplate(b, name, data); err != nil {
		return fmt.Errorf("render %s: %w", name, err)
	}
	return nil
}

// PutAction names the placing action in the grammar the admissible list
// uses: ALFWorld 0.4's "move {obj} to {recep}" or 0.3's "put {obj} in/on {recep}".
func PutAction(admissible []string) string {
	for _, a := range admissible {
		if strings.HasPrefix(a, "move ") {
			return "move {obj} to {recep}"
		}
	}
	return "put {obj} in/on {recep}"
}

// ParseReply extracts the thought and the action from a reply of the form
// "Thought: ...\nAction: ...". It tolerates markdown emphasis, any letter
// case, labels on the same line, extra prose and a missing action (the
// action is then empty and the caller retries). A reply with neither label is
// taken as a bare thought. Only an empty reply is an error.
func ParseReply(reply string) (thought, action string, err error) {
	thought, action, _, err = ParseReplyRepaired(reply)
	return thought, action, err
}

// ParseReplyRepaired is ParseReply that also says whether the reply needed
// repair (for the usage account): a fence, preamble or closing remark, a
// JSON object, quotes around the whole reply or the action, markdown
// emphasis or backticks.
func ParseReplyRepaired(reply string) (thought, action string, repaired bool, err error) {
	c, repaired := replyfmt.Clean(reply)
	if act, ok := replyfmt.JSONString(c, "action"); ok {
		th, _ := replyfmt.JSONString(c, "thought", "reason", "reasoning")
		return strings.Join(strings.Fields(th), " "), firstLine(act), true, nil
	}
	c, unwrapped := replyfmt.Unwrap(c)
	clean := strings.NewReplacer("**", "", "__", "", "`", "").Replace(c)
	repaired = repaired || unwrapped || clean != c
	// Fold ASCII letters only: strings.ToLower can change the byte length of
	// other runes, and the indices found in lower index clean.
	lower := fold.Lower(clean)
	ti := strings.Index(lower, "thought:")
	ai := strings.LastIndex(lower, "action:")
	switch {
	case ti >= 0 && ai > ti:
		thought = clean[ti+len("thought:") : ai]
		action = clean[ai+len("action:"):]
	case ti >= 0:
		thought = clean[ti+len("thought:"):]
	case ai >= 0:
		thought = clean[:ai]
		action = clean[ai+len("action:"):]
	default:
		thought = clean
	}
	thought = strings.Join(strings.Fields(thought), " ")
	action = firstLine(action)
	action, unquoted := replyfmt.Unquote(action)
	repaired = repaired || unquoted
	if len(thought) > 1000 {
		thought = thought[:1000]
	}
	if thought == "" && action == "" {
		return "", "", repaired, fmt.Errorf("reply %q: %w", truncate(reply, 80), ErrNoThought)
	}
	return thought, action, repaired, nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

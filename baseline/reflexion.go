package baseline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"sync"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/checkpoints"
	replyfmt "github.com/samem/trainer/internal/reply"
	"github.com/samem/trainer/llm"
)

// ReflexionName is the Reflexion baseline's name on the command line.
const ReflexionName = "reflexion"

// DefaultKeep is how many reflections Reflexion keeps: the last three
// (Shinn et al. 2023, cited as a baseline in seed 002 Sec. 4.1.1 and B.2,
// bound the reflection memory to a few, three, entries; CLIN's adaptation
// uses the same "last three", seed 004).
const DefaultKeep = 3

// ReflexionConfig configures the Reflexion baseline. Zero fields take the
// defaults.
type ReflexionConfig struct {
	// Keep is how many of the latest reflections are kept and shown; default
	// DefaultKeep.
	Keep int `json:"keep,omitempty"`
	// MaxHistory bounds the steps in the actor's prompt and in the
	// reflection prompt; default defaultMaxHistory.
	MaxHistory int `json:"max_history,omitempty"`
	// ReflectMaxTokens bounds the reflection's reply; default 200.
	ReflectMaxTokens int         `json:"reflect_max_tokens,omitempty"`
	Actor            ActorConfig `json:"actor,omitzero"`
}

// Reflexion is the Reflexion-style baseline (Shinn et al. 2023; seed 002
// Appendix B.2: "transforming failure cases into structured reflections").
// Its actor is the full-history actor, shown in addition the stored
// reflections. After a failed training trial it writes a reflection on the
// trial (LLM: prompts/reflect-*.tmpl; offline: HistorySession.Reflect,
// which in package baseline/offline names the first stage of the task never
// reached and the class of action most often repeated without effect, both
// de-indexicalised) and keeps the last Keep of them.
//
// In the paper the agent retries the same task and reflects on that task
// alone. In this harness training runs over many tasks and evaluation plays
// each unseen task once, so reflections are kept in one list shared across
// tasks: every episode sees the last Keep reflections, whichever tasks they
// came from. A reflection equal to one already kept replaces it (moves to
// the end) instead of taking a second place. Eval episodes read the
// reflections and write none (memory is frozen). Trials that ended in an
// error (Outcome.Err) are not reflected on: they failed for reasons outside
// the agent's play.
//
// Reflexion is safe for concurrent use; an episode sees the reflections as
// they were when it started.
type Reflexion struct {
	cfg     ReflexionConfig
	chat    llm.Chatter
	actor   *actor       // nil offline
	offline HistoryActor // nil with a model

	mu   sync.Mutex
	refl []Reflection // oldest first, at most cfg.Keep
	seq  int64        // sequence number of the next reflection
}

// Reflection is one stored reflection, also the row of the saved file.
type Reflection struct {
	// Seq orders reflections: it increases by one with every reflection
	// made, kept or not.
	Seq int64 `parquet:"seq"`
	// Task is the ID of the task of the failed trial.
	Task string `parquet:"task"`
	Text string `parquet:"text"`
}

// reflexionMaxHistory is how many steps of the episode Reflexion's actor
// sees by default: the household world's episodes are at most 50 steps, so
// there it is the whole trajectory; longer games keep the opening
// observation and the latest steps.
const reflexionMaxHistory = 50

// NewReflexion returns the Reflexion baseline with no reflections.
func NewReflexion(cfg ReflexionConfig, deps Deps) (*Reflexion, error) {
	if cfg.Keep < 0 || cfg.MaxHistory < 0 || cfg.ReflectMaxTokens < 0 || !cfg.Actor.valid() {
		return nil, fmt.Errorf("%w: %+v", ErrConfig, cfg)
	}
	cfg.Keep = cmp.Or(cfg.Keep, DefaultKeep)
	cfg.MaxHistory = cmp.Or(cfg.MaxHistory, reflexionMaxHistory)
	cfg.ReflectMaxTokens = cmp.Or(cfg.ReflectMaxTokens, 200)
	cfg.Actor = cfg.Actor.withDefaults()
	r := &Reflexion{cfg: cfg, chat: deps.Chat}
	if deps.Chat != nil {
		r.actor = &actor{chat: deps.Chat, emb: deps.Embed, cfg: cfg.Actor, purpose: ReflexionName + ".act"}
	} else if r.offline = deps.Offline.History; r.offline == nil {
		return nil, fmt.Errorf("%w: %s: no model and no offline actor", ErrConfig, ReflexionName)
	}
	return r, nil
}

// Name implements agent.Method.
func (*Reflexion) Name() string { return ReflexionName }

// Size implements agent.Sizer.
func (r *Reflexion) Size() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return map[string]int{"reflections": len(r.refl)}
}

// Reflections returns the kept reflections, oldest first.
func (r *Reflexion) Reflections() []Reflection {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.refl)
}

// add stores a reflection and keeps the last Keep.
func (r *Reflexion) add(task, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refl = slices.DeleteFunc(r.refl, func(x Reflection) bool { return x.Text == text })
	r.refl = append(r.refl, Reflection{Seq: r.seq, Task: task, Text: text})
	r.seq++
	if n := len(r.refl) - r.cfg.Keep; n > 0 {
		r.refl = slices.Delete(r.refl, 0, n)
	}
}

// Start implements agent.Method.
func (r *Reflexion) Start(_ context.Context, s agent.Start) (agent.Episode, error) {
	refl := r.Reflections()
	texts := make([]string, len(refl))
	for i, x := range refl {
		texts[i] = x.Text
	}
	e := newHistoryEpisode(s, r.actor, r.offline, r.cfg.MaxHistory, texts)
	if len(refl) > 0 {
		// Every decision of the episode is shown the same reflections.
		e.shown = &agent.Recall{}
		for _, x := range refl {
			e.shown.Items = append(e.shown.Items, agent.RecallItem{
				ID: strconv.FormatInt(x.Seq, 10), Kind: "reflection", Text: x.Text,
				Scores: map[string]float64{"seq": float64(x.Seq)},
			})
		}
	}
	return &reflexionEpisode{historyEpisode: e, r: r}, nil
}

// MemoryTables implements agent.Shower: the kept reflections, oldest
// first, with the task of the failed trial each was written after.
func (r *Reflexion) MemoryTables() []agent.Table {
	t := agent.Table{Name: "reflections", Columns: []string{"seq", "task", "reflection"}}
	for _, x := range r.Reflections() {
		t.Rows = append(t.Rows, []string{strconv.FormatInt(x.Seq, 10), x.Task, x.Text})
	}
	return []agent.Table{t}
}

type reflexionEpisode struct {
	*historyEpisode
	r *Reflexion
}

// Finish implements agent.Episode: a failed trial that learns (training,
// online evaluation) is reflected on.
func (e *reflexionEpisode) Finish(ctx context.Context, out agent.Outcome) error {
	if !e.start.Mode.Learns() || out.Won || out.Err != "" {
		return nil
	}
	var text string
	if e.r.actor == nil {
		text = e.offline.Reflect()
	} else {
		hist, omitted := window(e.steps, e.r.cfg.MaxHistory)
		msgs, err := reflectMessages(e.start.Task.Goal, out.Failure(), hist, omitted)
		if err != nil {
			return err
		}
		req := llm.Request{Purpose: ReflexionName + ".reflect", Messages: msgs, MaxTokens: e.r.cfg.ReflectMaxTokens, Schema: ReflectionSchema}
		_, err = replyfmt.Ask(ctx, e.r.chat, req, 0, llm.Skipped, func(a replyfmt.Answer) (repaired bool, err error) {
			text, repaired, err = ParseReflectionAnswer(a)
			return repaired, err
		})
		if errors.Is(err, replyfmt.ErrUnusable) {
			// No usable reflection within the budget: none is stored.
			text = ""
		} else if err != nil {
			return fmt.Errorf("reflect: %w", err)
		}
	}
	if text != "" {
		e.r.add(e.start.Task.ID, text)
	}
	return nil
}

// ParseReflectionAnswer reads a reflection: the JSON's "reflection" when
// the server was asked for the schema and answered with it, else the text;
// both as ParseReflection reads them.
func ParseReflectionAnswer(a replyfmt.Answer) (string, bool, error) {
	var v struct {
		Reflection string `json:"reflection"`
	}
	if a.Structured && replyfmt.Decode(a.Text, &v) {
		s, err := ParseReflection(v.Reflection)
		return s, false, err
	}
	s, err := ParseReflection(a.Text)
	_, repaired := replyfmt.Clean(a.Text)
	return s, repaired, err
}

// reflectionsFile is the file Save writes in a checkpoint directory.
const reflectionsFile = "reflexion_reflections.parquet"

// ErrBadReflections is returned (wrapped) by Load when the saved rows break
// the file's invariants: sequence numbers not strictly increasing, or an
// empty text.
var ErrBadReflections = errors.New("baseline: bad saved reflections")

// Save implements agent.Saver: the kept reflections as one Parquet file.
func (r *Reflexion) Save(ctx context.Context, dir string) error {
	// The next sequence number is not stored: every reflection made gets
	// the end of the list, so it is the last row's Seq+1, as Load restores.
	rows := r.Reflections()
	if err := checkpoints.WriteFile(ctx, filepath.Join(dir, reflectionsFile), rows, checkpoints.WriteOptions{}); err != nil {
		return fmt.Errorf("save reflexion: %w", err)
	}
	return nil
}

// Load implements agent.Saver. A file with more rows than Keep keeps the
// last Keep.
func (r *Reflexion) Load(ctx context.Context, dir string) error {
	rows, err := checkpoints.ReadFile[Reflection](ctx, filepath.Join(dir, reflectionsFile))
	if err != nil {
		return fmt.Errorf("load reflexion: %w", err)
	}
	for i, x := range rows {
		if x.Text == "" || (i > 0 && x.Seq <= rows[i-1].Seq) || x.Seq < 0 {
			return fmt.Errorf("load reflexion: row %d: %w", i, ErrBadReflections)
		}
	}
	var next int64
	if len(rows) > 0 {
		next = rows[len(rows)-1].Seq + 1
	}
	if n := len(rows) - r.cfg.Keep; n > 0 {
		rows = rows[n:]
	}
	if len(rows) == 0 {
		rows = nil
	}
	r.mu.Lock()
	r.refl, r.seq = rows, next
	r.mu.Unlock()
	return nil
}

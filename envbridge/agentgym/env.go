package agentgym

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/samem/trainer/envbridge"
)

// Env is one server-side environment (one id from /create). Not safe for
// concurrent use.
type Env struct {
	s        *Suite
	id       int
	maxSteps int
	steps    int
	score    float64
	started  bool
	done     bool
	closed   bool
	task     envbridge.Task // the last reset task as the server described it
}

var (
	_ envbridge.Env       = (*Env)(nil)
	_ envbridge.Describer = (*Env)(nil)
)

// resetReply holds the fields of both servers' /reset answers.
type resetReply struct {
	Observation      string   `json:"observation"`
	AvailableActions []string `json:"available_actions"` // ALFWorld
	TaskType         string   `json:"task_type"`         // ALFWorld: the game path, "pick_and_place_simple-.../trial_..."
	TaskName         string   `json:"task_name"`         // ScienceWorld: "boil"
	VarNum           *int     `json:"var_num"`           // ScienceWorld: the variation
	TaskDescription  string   `json:"task_description"`  // ScienceWorld
	Score            float64  `json:"score"`             // ScienceWorld
}

// stepReply holds the fields of both servers' /step answers.
type stepReply struct {
	Observation      *string  `json:"observation"`
	Reward           float64  `json:"reward"` // ALFWorld: the won flag
	AvailableActions []string `json:"available_actions"`
	Score            *float64 `json:"score"` // ScienceWorld: 0..100, negative on failure
	Done             bool     `json:"done"`
}

// Reset loads the task's index (POST /reset). The ScienceWorld observation
// starts with the task description. The answer's task identity (type and
// goal) must match what the suite listed for the index once it is known
// (Suite.Identify, Config.Known): a server with other data is refused.
func (e *Env) Reset(ctx context.Context, t envbridge.Task) (envbridge.Observation, error) {
	if e.closed {
		return envbridge.Observation{}, envbridge.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return envbridge.Observation{}, fmt.Errorf("agentgym reset: %w", err)
	}
	idx, ok := e.s.index[t.ID]
	if !ok {
		return envbridge.Observation{}, fmt.Errorf("agentgym reset %q: %w", t.ID, envbridge.ErrUnknownTask)
	}
	e.started, e.done = false, true
	r, err := e.reset(ctx, idx)
	if err != nil {
		return envbridge.Observation{}, err
	}
	id, err := e.s.identity(r)
	if err != nil {
		return envbridge.Observation{}, fmt.Errorf("agentgym reset %s (index %d): %w", t.ID, idx, err)
	}
	if want, ok := e.s.known[idx]; ok && (want.Type != id.Type || want.Goal != id.Goal) {
		return envbridge.Observation{}, fmt.Errorf("agentgym reset %s: %w: index %d is now %s %q, was %s %q (a server with other data?)",
			t.ID, ErrBadResponse, idx, id.Type, id.Goal, want.Type, want.Goal)
	}
	e.task = e.s.describe(t, id)
	e.maxSteps = e.task.MaxSteps
	e.steps, e.score, e.started, e.done = 0, 0, true, false
	obs := envbridge.Observation{Text: r.Observation}
	if e.s.cfg.Kind == ALFWorld {
		obs.Admissible = nonNil(r.AvailableActions)
	} else {
		e.score = r.Score
		if r.TaskDescription != "" {
			obs.Text = r.TaskDescription + "\n\n" + r.Observation
		}
		if err := e.hint(ctx, &obs); err != nil {
			return envbridge.Observation{}, err
		}
	}
	return obs, nil
}

// Described is the task of the last Reset as the server described it: its
// type, goal and the step limit of that type (envbridge.Describer).
func (e *Env) Described() envbridge.Task { return e.task }

// reset sends POST /reset for a server task index.
func (e *Env) reset(ctx context.Context, idx int) (resetReply, error) {
	var body any
	if e.s.cfg.Kind == ALFWorld {
		body = map[string]any{"id": e.id, "game": idx, "world_type": e.s.cfg.WorldType}
	} else {
		body = map[string]any{"id": e.id, "data_idx": idx}
	}
	var r resetReply
	err := e.s.post(ctx, "/reset", body, &r)
	return r, err
}

// Step sends the action (POST /step) and normalises the answer.
func (e *Env) Step(ctx context.Context, action string) (envbridge.StepResult, error) {
	if e.closed {
		return envbridge.StepResult{}, envbridge.ErrClosed
	}
	if !e.started || e.done {
		return envbridge.StepResult{}, fmt.Errorf("agentgym step: %w", envbridge.ErrEpisodeOver)
	}
	var r stepReply
	if err := e.s.post(ctx, "/step", map[string]any{"id": e.id, "action": action}, &r); err != nil {
		return envbridge.StepResult{}, err
	}
	if r.Observation == nil {
		return envbridge.StepResult{}, fmt.Errorf("agentgym /step: %w: no observation", ErrBadResponse)
	}
	e.steps++
	prev := e.score
	res := envbridge.StepResult{Observation: envbridge.Observation{Text: *r.Observation}}
	switch e.s.cfg.Kind {
	case ALFWorld:
		res.Admissible = nonNil(r.AvailableActions)
		res.MaxScore = 1
		// The won flag, not done: done also fires at the server's step limit.
		res.Won = r.Reward >= 1
		if res.Won {
			e.score = 1
		}
		res.Done = res.Won || r.Done
		res.Truncated = res.Done && !res.Won
	case ScienceWorld:
		if r.Score == nil {
			return envbridge.StepResult{}, fmt.Errorf("agentgym /step: %w: no score", ErrBadResponse)
		}
		e.score = *r.Score
		res.MaxScore = 100
		res.Won = e.score >= 100
		res.Lost = e.score < 0
		res.Done = res.Won || res.Lost || r.Done
	}
	if !res.Done && e.steps >= e.maxSteps {
		res.Done, res.Truncated = true, true
	}
	res.Score = e.score
	res.Reward = e.score - prev
	e.done = res.Done
	if e.s.cfg.Kind == ScienceWorld && !res.Done {
		if err := e.hint(ctx, &res.Observation); err != nil {
			return envbridge.StepResult{}, err
		}
	}
	return res, nil
}

// hint fills a ScienceWorld observation's action language from GET
// /action_hint: the action templates and the objects an OBJ can name now
// (what seed 004 Fig. 6 shows its controller). A server without the
// endpoint (HTTP 404) is not asked again, and any other failure leaves the
// observation without them: the step itself has been played, and the
// methods then fall back on ScienceWorld's own list of templates
// (envbridge.ScienceActions). Only a cancelled context is an error.
func (e *Env) hint(ctx context.Context, obs *envbridge.Observation) error {
	if e.s.noHints.Load() {
		return nil
	}
	var h struct {
		Actions []string `json:"possible_actions"`
		Objects []string `json:"possible_objects"`
	}
	err := e.s.get(ctx, "/action_hint", e.id, &h)
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("agentgym /action_hint: %w", ctx.Err())
	case err != nil:
		if se := (*statusError)(nil); errors.As(err, &se) && se.code == http.StatusNotFound {
			e.s.noHints.Store(true)
		}
		return nil
	}
	if len(h.Actions) > 0 {
		obs.Templates, obs.Objects = h.Actions, nonNil(h.Objects)
	}
	return nil
}

// AvailableActions asks GET /available_actions (ALFWorld).
func (e *Env) AvailableActions(ctx context.Context) ([]string, error) {
	if e.closed {
		return nil, envbridge.ErrClosed
	}
	var a []string
	if err := e.s.get(ctx, "/available_actions", e.id, &a); err != nil {
		return nil, err
	}
	return nonNil(a), nil
}

// Observation asks GET /observation: the last observation text.
func (e *Env) Observation(ctx context.Context) (string, error) {
	if e.closed {
		return "", envbridge.ErrClosed
	}
	var raw json.RawMessage
	if err := e.s.get(ctx, "/observation", e.id, &raw); err != nil {
		return "", err
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("agentgym /observation: %w: %v", ErrBadResponse, err)
	}
	return s, nil
}

// Close forgets the environment. AgentGym's servers have no call to delete
// one, so the server keeps it until it restarts. Idempotent.
func (e *Env) Close() error {
	e.closed = true
	return nil
}

func nonNil(a []string) []string {
	if a == nil {
		return []string{}
	}
	return a
}

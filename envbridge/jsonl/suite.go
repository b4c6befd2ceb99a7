package jsonl

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/samem/trainer/envbridge"
)

// Config configures a Suite.
type Config struct {
	// Command is the environment program and its arguments, run without a
	// shell (required).
	Command []string
	// Dir is the program's working directory; default the current one.
	Dir string
	// RequestTimeout bounds every request; an environment that does not answer
	// in time is killed. Default 30 s.
	RequestTimeout time.Duration
	// MaxLineBytes bounds one response line. Default 4 MiB.
	MaxLineBytes int
}

// ErrNoCommand is returned by NewSuite without Config.Command.
var ErrNoCommand = errors.New("jsonl: no command")

// Suite lists the environment's tasks (read once, by NewSuite) and opens
// environments, each its own child process.
type Suite struct {
	cfg   Config
	hello Hello
	tasks map[string][]envbridge.Task
}

var _ envbridge.Suite = (*Suite)(nil)

// NewSuite starts the program once to say hello and list its splits' tasks,
// then closes it.
func NewSuite(ctx context.Context, cfg Config) (*Suite, error) {
	if len(cfg.Command) == 0 || cfg.Command[0] == "" {
		return nil, ErrNoCommand
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = 30 * time.Second
	}
	if cfg.MaxLineBytes <= 0 {
		cfg.MaxLineBytes = 4 << 20
	}
	s := &Suite{cfg: cfg, tasks: map[string][]envbridge.Task{}}
	c, h, err := s.start(ctx)
	if err != nil {
		return nil, err
	}
	defer c.close()
	s.hello = h
	if len(s.hello.Splits) == 0 {
		return nil, fmt.Errorf("jsonl hello: %w: no splits", ErrProtocol)
	}
	for _, sp := range s.hello.Splits {
		var res struct {
			Tasks []envbridge.Task `json:"tasks"`
		}
		if err := c.call(ctx, "tasks", map[string]string{"split": sp}, &res); err != nil {
			return nil, err
		}
		for i := range res.Tasks {
			res.Tasks[i].Split = sp
		}
		s.tasks[sp] = res.Tasks
	}
	return s, nil
}

// start starts a process and says hello.
func (s *Suite) start(ctx context.Context) (*client, Hello, error) {
	c, err := startClient(s.cfg)
	if err != nil {
		return nil, Hello{}, err
	}
	var h Hello
	if err := c.call(ctx, "hello", map[string]int{"version": Version}, &h); err != nil {
		c.kill()
		return nil, Hello{}, err
	}
	if h.Version != Version {
		c.close()
		return nil, Hello{}, fmt.Errorf("jsonl hello: %w: version %d, want %d", ErrProtocol, h.Version, Version)
	}
	return c, h, nil
}

// Name is "jsonl:" and the name the environment gave in hello.
func (s *Suite) Name() string { return "jsonl:" + s.hello.Name }

// Style is the style the environment gave in hello (fiction when it gave none).
func (s *Suite) Style() envbridge.Style {
	if s.hello.Style == "" {
		return envbridge.StyleFiction
	}
	return s.hello.Style
}

// Splits lists the environment's splits in its order.
func (s *Suite) Splits() []string { return slices.Clone(s.hello.Splits) }

// Tasks lists a split's tasks.
func (s *Suite) Tasks(split string) ([]envbridge.Task, error) {
	ts, ok := s.tasks[split]
	if !ok {
		return nil, fmt.Errorf("jsonl tasks %q: %w", split, envbridge.ErrUnknownSplit)
	}
	return slices.Clone(ts), nil
}

// Open starts a new environment process.
func (s *Suite) Open(ctx context.Context) (envbridge.Env, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("jsonl open: %w", err)
	}
	c, _, err := s.start(ctx)
	if err != nil {
		return nil, fmt.Errorf("jsonl open: %w", err)
	}
	return &Env{suite: s, c: c}, nil
}

// Env is one environment process. When the process dies or breaks the
// protocol, the episode ends with the error and the next Reset starts a new
// process. Not safe for concurrent use.
type Env struct {
	suite   *Suite
	c       *client
	started bool
	done    bool
	closed  bool
}

var _ envbridge.Env = (*Env)(nil)

// Reset sends "reset" with the task.
func (e *Env) Reset(ctx context.Context, t envbridge.Task) (envbridge.Observation, error) {
	if e.closed {
		return envbridge.Observation{}, envbridge.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return envbridge.Observation{}, fmt.Errorf("jsonl reset: %w", err)
	}
	e.started = false
	if e.c == nil || e.c.broken != nil {
		if e.c != nil {
			e.c.kill()
		}
		c, _, err := e.suite.start(ctx)
		if err != nil {
			e.c = nil
			return envbridge.Observation{}, fmt.Errorf("jsonl reset: restart: %w", err)
		}
		e.c = c
	}
	var obs envbridge.Observation
	if err := e.c.call(ctx, "reset", map[string]any{"task": t}, &obs); err != nil {
		return envbridge.Observation{}, fmt.Errorf("jsonl reset %s: %w", t.ID, err)
	}
	e.started, e.done = true, false
	return obs, nil
}

// Step sends "step" with the action.
func (e *Env) Step(ctx context.Context, action string) (envbridge.StepResult, error) {
	if e.closed {
		return envbridge.StepResult{}, envbridge.ErrClosed
	}
	if !e.started || e.done || e.c == nil {
		return envbridge.StepResult{}, fmt.Errorf("jsonl step: %w", envbridge.ErrEpisodeOver)
	}
	var res envbridge.StepResult
	if err := e.c.call(ctx, "step", map[string]string{"action": action}, &res); err != nil {
		if e.c.broken != nil {
			e.done = true
		}
		return envbridge.StepResult{}, fmt.Errorf("jsonl step: %w", err)
	}
	if res.Won || res.Lost || res.Truncated {
		res.Done = true
	}
	e.done = res.Done
	return res, nil
}

// Close sends "close" and ends the process. It is idempotent.
func (e *Env) Close() error {
	if e.closed {
		return nil
	}
	e.closed = true
	if e.c != nil {
		e.c.close()
	}
	return nil
}

// Package agentgym is a client for AgentGym-style HTTP environment servers
// (agentenv-alfworld, agentenv-sciworld): POST /create, /reset and /step, GET
// /available_actions and /observation. It normalises their semantics to the
// envbridge contract.
//
// ALFWorld: /step returns "reward" = the won flag (1 or 0) and "done", which
// also fires at the server's step limit; success is the won flag, never done.
// The score is 0 or 1 (MaxScore 1). ScienceWorld: "score" runs 0 to 100;
// success is a score of 100, a negative score is a loss (MaxScore 100).
// AgentGym reports failures as {"error": "..."} with HTTP 200: they become
// Go errors wrapping ErrServer.
package agentgym

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/samem/trainer/envbridge"
)

// Kind names the server's environment.
type Kind string

// Kinds of server.
const (
	ALFWorld     Kind = "alfworld"
	ScienceWorld Kind = "sciworld"
)

// Config configures a Suite.
type Config struct {
	// URL is the server's base URL, e.g. http://localhost:36001 (required).
	URL string
	// Kind is ALFWorld or ScienceWorld (required).
	Kind Kind
	// Splits maps a split name to the server's task indices in it (ALFWorld's
	// "game", ScienceWorld's "data_idx"); the servers do not list their tasks.
	// Required: at least one split with one index. ParseIndices reads "0-9,20".
	Splits map[string][]int
	// WorldType is ALFWorld's world_type: "Text" (default), "Embody" or "Hybrid".
	WorldType string
	// MaxSteps is every task's step limit when set. Default: ALFWorld 50
	// (DefaultMaxSteps); ScienceWorld the limit of the task type's level,
	// 20, 20 or 40 (seed 002 Appendix B.1), known once the suite has been
	// identified.
	MaxSteps int
	// IdentifyWorkers is the number of server-side environments Identify
	// resets at once. Default 4.
	IdentifyWorkers int
	// Known holds task identities learnt earlier (Suite.Identities), so that
	// Identify asks the server only about the others.
	Known map[int]Identity
	// Timeout bounds each HTTP request. Default 60 s.
	Timeout time.Duration
	// MaxBodyBytes bounds a response body. Default 8 MiB.
	MaxBodyBytes int64
	// Client is the HTTP client; default a new one.
	Client *http.Client
}

// Errors.
var (
	// ErrServer wraps an {"error": ...} answer or a non-2xx status.
	ErrServer = errors.New("agentgym server error")
	// ErrConfig is returned by NewSuite for a missing or bad Config field.
	ErrConfig = errors.New("agentgym config")
	// ErrBadResponse is returned for a body that is not the expected JSON or
	// is larger than Config.MaxBodyBytes.
	ErrBadResponse = errors.New("agentgym bad response")
)

// Suite lists the configured task indices and opens server-side environments.
type Suite struct {
	cfg    Config
	base   *url.URL
	splits []string
	tasks  map[string][]envbridge.Task
	index  map[string]int
	known  map[int]Identity
	// noHints is set once the server answers that it has no
	// /action_hint (ScienceWorld's templates and objects): it is not asked
	// again.
	noHints atomic.Bool
}

var _ envbridge.Suite = (*Suite)(nil)

// NewSuite checks cfg; it does not contact the server.
func NewSuite(cfg Config) (*Suite, error) {
	base, err := url.Parse(cfg.URL)
	if err != nil || cfg.URL == "" || (base.Scheme != "http" && base.Scheme != "https") {
		return nil, fmt.Errorf("%w: URL %q", ErrConfig, cfg.URL)
	}
	if cfg.Kind != ALFWorld && cfg.Kind != ScienceWorld {
		return nil, fmt.Errorf("%w: kind %q (want %q or %q)", ErrConfig, cfg.Kind, ALFWorld, ScienceWorld)
	}
	if cfg.WorldType == "" {
		cfg.WorldType = "Text"
	}
	if cfg.MaxSteps < 0 {
		return nil, fmt.Errorf("%w: max steps %d", ErrConfig, cfg.MaxSteps)
	}
	if cfg.IdentifyWorkers <= 0 {
		cfg.IdentifyWorkers = 4
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 60 * time.Second
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = 8 << 20
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{}
	}
	s := &Suite{cfg: cfg, base: base, tasks: map[string][]envbridge.Task{}, index: map[string]int{}, known: maps.Clone(cfg.Known)}
	if s.known == nil {
		s.known = map[int]Identity{}
	}
	for sp, idx := range cfg.Splits {
		if len(idx) > 0 {
			s.splits = append(s.splits, sp)
		}
	}
	if len(s.splits) == 0 {
		return nil, fmt.Errorf("%w: no split with task indices", ErrConfig)
	}
	slices.SortFunc(s.splits, splitOrder)
	// Until Identify (or Config.Known) says what an index is, its task has
	// the kind as its type and a goal that points at the first observation;
	// a Reset still gives the runner the served identity (Env.Described).
	unknown := Identity{Type: string(cfg.Kind), Goal: "Complete the task stated in the first observation."}
	for _, sp := range s.splits {
		for _, i := range cfg.Splits[sp] {
			t := envbridge.Task{ID: fmt.Sprintf("%s/%s/%d", cfg.Kind, sp, i), Split: sp, Seed: int64(i)}
			id, ok := s.known[i]
			if !ok {
				id = unknown
			}
			t = s.describe(t, id)
			s.tasks[sp] = append(s.tasks[sp], t)
			s.index[t.ID] = i
		}
	}
	return s, nil
}

// splitOrder puts the standard splits first, then the others by name.
func splitOrder(a, b string) int {
	rank := func(s string) int {
		switch s {
		case envbridge.SplitTrain:
			return 0
		case envbridge.SplitValidSeen:
			return 1
		case envbridge.SplitValidUnseen:
			return 2
		}
		return 3
	}
	if ra, rb := rank(a), rank(b); ra != rb {
		return ra - rb
	}
	return strings.Compare(a, b)
}

// ParseIndices reads a list of task indices such as "0-9,20,31-33".
func ParseIndices(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return nil, fmt.Errorf("%w: index %q", ErrConfig, part)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a || b-a > 1_000_000 {
				return nil, fmt.Errorf("%w: range %q", ErrConfig, part)
			}
		}
		for i := a; i <= b; i++ {
			out = append(out, i)
		}
	}
	return out, nil
}

// Name is "agentgym:" and the kind.
func (s *Suite) Name() string { return "agentgym:" + string(s.cfg.Kind) }

// Style is household for ALFWorld and science for ScienceWorld.
func (s *Suite) Style() envbridge.Style {
	if s.cfg.Kind == ALFWorld {
		return envbridge.StyleHousehold
	}
	return envbridge.StyleScience
}

// Splits lists the configured splits: train, valid_seen, valid_unseen first.
func (s *Suite) Splits() []string { return slices.Clone(s.splits) }

// Tasks lists a split's tasks in the configured order.
func (s *Suite) Tasks(split string) ([]envbridge.Task, error) {
	ts, ok := s.tasks[split]
	if !ok {
		return nil, fmt.Errorf("agentgym tasks %q: %w", split, envbridge.ErrUnknownSplit)
	}
	return slices.Clone(ts), nil
}

// Open creates a server-side environment (POST /create).
func (s *Suite) Open(ctx context.Context) (envbridge.Env, error) {
	return s.OpenEnv(ctx)
}

// OpenEnv is Open with the concrete type.
func (s *Suite) OpenEnv(ctx context.Context) (*Env, error) {
	var res struct {
		ID *int `json:"id"`
	}
	if err := s.post(ctx, "/create", struct{}{}, &res); err != nil {
		return nil, err
	}
	if res.ID == nil {
		return nil, fmt.Errorf("agentgym /create: %w: no id", ErrBadResponse)
	}
	return &Env{s: s, id: *res.ID}, nil
}

func (s *Suite) post(ctx context.Context, path string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("agentgym %s: %w", path, err)
	}
	return s.do(ctx, http.MethodPost, path, nil, b, out)
}

func (s *Suite) get(ctx context.Context, path string, id int, out any) error {
	return s.do(ctx, http.MethodGet, path, url.Values{"id": {strconv.Itoa(id)}}, nil, out)
}

// statusError is a server's answer with an HTTP status other than 2xx; it
// wraps ErrServer.
type statusError struct {
	path string
	code int
	body string
}

func (e *statusError) Error() string {
	return fmt.Sprintf("agentgym %s: %v: HTTP %d: %s", e.path, ErrServer, e.code, e.body)
}

func (e *statusError) Unwrap() error { return ErrServer }

// do sends one request and decodes the answer into out, turning an
// {"error": ...} body (HTTP 200) into ErrServer.
func (s *Suite) do(ctx context.Context, method, path string, q url.Values, body []byte, out any) error {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	u := s.base.JoinPath(path)
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, method, u.String(), bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("agentgym %s: %w", path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.cfg.Client.Do(req)
	if err != nil {
		return fmt.Errorf("agentgym %s: %w", path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, s.cfg.MaxBodyBytes+1))
	if err != nil {
		return fmt.Errorf("agentgym %s: read body: %w", path, err)
	}
	if int64(len(data)) > s.cfg.MaxBodyBytes {
		return fmt.Errorf("agentgym %s: %w: body over %d bytes", path, ErrBadResponse, s.cfg.MaxBodyBytes)
	}
	if resp.StatusCode/100 != 2 {
		return &statusError{path: path, code: resp.StatusCode, body: quote(data)}
	}
	if msg, ok := errorField(data); ok {
		return fmt.Errorf("agentgym %s: %w: %s", path, ErrServer, msg)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("agentgym %s: %w: %v: %s", path, ErrBadResponse, err, quote(data))
	}
	return nil
}

// errorField reports an AgentGym error body: an object with an "error" key.
func errorField(data []byte) (string, bool) {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &e) != nil || len(e.Error) == 0 || string(e.Error) == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(e.Error, &s) == nil {
		return s, true
	}
	return string(e.Error), true
}

func quote(b []byte) string {
	if len(b) > 200 {
		return fmt.Sprintf("%q...", b[:200])
	}
	return fmt.Sprintf("%q", b)
}

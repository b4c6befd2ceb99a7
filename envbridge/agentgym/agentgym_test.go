package agentgym

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/envtest"
)

// fakeServer follows AgentGym's agentenv-alfworld and agentenv-sciworld
// servers: JSON bodies, ids from /create, failures as {"error": "..."} with
// HTTP 200, a refusal to step a finished environment.
type fakeServer struct {
	kind   Kind
	limit  int // ALFWorld's own step limit
	mu     sync.Mutex
	resets int // /reset answers given
	envs   map[int]*fakeEnv
	next   int
	status int // when non-zero, every answer has this HTTP status
	huge   bool
}

type fakeEnv struct {
	game, steps int
	score       float64
	holding     bool
	done        bool
	obs         string
	actions     []string
}

// fakeGame is one task index of the fake server, described as the real
// servers describe theirs: ALFWorld by the game path it returns as
// "task_type" (the last two folders of .../json_2.1.1/train/<type-...>/<trial>/game.tw-pddl)
// and the goal sentence of its first observation; ScienceWorld by
// "task_name", "var_num" and "task_description".
type fakeGame struct {
	path, goal string // ALFWorld
	name, desc string // ScienceWorld
	variation  int
}

var alfGames = []fakeGame{
	{path: "pick_and_place_simple-Apple-None-Fridge-10/trial_T20190906_001", goal: "put an apple in fridge."},
	{path: "pick_cool_then_place_in_recep-Apple-None-Fridge-10/trial_T20190907_002", goal: "cool some apple and put it in fridge."},
	{path: "pick_and_place_simple-Mug-None-Desk-301/trial_T20190908_003", goal: "put a mug in desk."},
	{path: "look_at_obj_in_light-Book-None-DeskLamp-302/trial_T20190909_004", goal: "look at book under the desklamp."},
	{path: "pick_cool_then_place_in_recep-Mug-None-CoffeeMachine-23/trial_T20190908_143209_571893", goal: "cool some mug and put it in coffeemachine."},
	{path: "pick_and_place_simple-Pillow-None-ArmChair-317/trial_T20190918_005", goal: "put some pillow on armchair."},
}

var sciGames = []fakeGame{
	{name: "boil", variation: 0, desc: "Your task is to boil water."},
	{name: "boil", variation: 1, desc: "Your task is to boil chocolate."},
	{name: "boil", variation: 2, desc: "Your task is to boil ice cream."},
	{name: "find-plant", variation: 0, desc: "Your task is to find a(n) plant. First, focus on the thing."},
	{name: "find-plant", variation: 1, desc: "Your task is to find a(n) plant. Then move it to the red box."},
	{name: "chemistry-mix", variation: 0, desc: "Your task is to use chemistry to create salt water."},
}

func newFake(t *testing.T, kind Kind) (*fakeServer, *httptest.Server) {
	f := &fakeServer{kind: kind, limit: 6, envs: map[int]*fakeEnv{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.status != 0 {
		http.Error(w, "Internal Server Error", f.status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	if f.huge {
		w.Write([]byte(`{"id": 0, "pad": "` + strings.Repeat("x", 1<<20) + `"}`))
		return
	}
	var body struct {
		ID      int    `json:"id"`
		Action  string `json:"action"`
		Game    int    `json:"game"`
		DataIdx int    `json:"data_idx"`
		World   string `json:"world_type"`
	}
	if r.Method == http.MethodPost {
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, `{"detail":"unprocessable"}`, http.StatusUnprocessableEntity)
			return
		}
	} else {
		body.ID, _ = strconv.Atoi(r.URL.Query().Get("id"))
	}
	fail := func(msg string) { enc.Encode(map[string]string{"error": msg}) }
	env := f.envs[body.ID]
	switch r.URL.Path {
	case "/create":
		f.envs[f.next] = &fakeEnv{}
		enc.Encode(map[string]int{"id": f.next})
		f.next++
		return
	case "/reset", "/step", "/observation", "/available_actions":
	default:
		http.NotFound(w, r)
		return
	}
	if env == nil {
		fail(fmt.Sprintf("The id %d is not valid.", body.ID))
		return
	}
	switch r.URL.Path {
	case "/reset":
		game := body.Game
		if f.kind == ScienceWorld {
			game = body.DataIdx
		} else if body.World != "Text" {
			fail(`world_type must be one of "Text", "Embody" and "Hybrid"`)
			return
		}
		games := alfGames
		if f.kind == ScienceWorld {
			games = sciGames
		}
		if game < 0 || game >= len(games) {
			fail("list index out of range")
			return
		}
		f.resets++
		g := games[game]
		// ALFWorld's server drops the welcome banner and joins the rest
		// with single newlines: the room, then the goal sentence.
		*env = fakeEnv{game: game, obs: fmt.Sprintf("You are in room %d. Looking quickly around you, you see a fridge 1.\nYour task is to: %s", game, g.goal),
			actions: []string{"look", "put apple in fridge", "take apple"}}
		if f.kind == ALFWorld {
			enc.Encode(map[string]any{"id": body.ID, "observation": env.obs, "available_actions": env.actions, "task_type": g.path})
		} else {
			enc.Encode(map[string]any{"task_name": g.name, "var_num": g.variation, "task_description": g.desc,
				"observation": "This room is called the kitchen.", "reward": 0, "score": 0, "deleted": false, "done": false})
		}
	case "/step":
		if env.done {
			fail(fmt.Sprintf("The task with environment %d has finished.", body.ID))
			return
		}
		env.steps++
		if f.kind == ALFWorld {
			won := 0.0
			switch body.Action {
			case "take apple":
				env.holding, env.obs = true, "You pick up the apple."
			case "put apple in fridge":
				if env.holding {
					won, env.obs = 1, "You put the apple in the fridge."
				} else {
					env.obs = "Nothing happens."
				}
			default:
				env.obs = "Nothing happens."
			}
			env.done = won == 1 || env.steps >= f.limit
			enc.Encode(map[string]any{"observation": env.obs, "reward": won, "available_actions": env.actions, "done": env.done})
			return
		}
		switch body.Action {
		case "focus on water":
			env.score = 100
		case "eat poison":
			env.score = -100
		case "heat water":
			env.score = min(env.score+25, 75)
		}
		env.done = env.score >= 100 || env.score < 0
		env.obs = "You did " + body.Action + "."
		enc.Encode(map[string]any{"observation": env.obs, "reward": 0, "score": env.score, "done": env.done})
	case "/observation":
		enc.Encode(env.obs)
	case "/available_actions":
		if f.kind != ALFWorld {
			http.NotFound(w, r)
			return
		}
		enc.Encode(env.actions)
	}
}

func suite(t *testing.T, kind Kind, mut func(*Config)) (*fakeServer, *Suite) {
	t.Helper()
	f, srv := newFake(t, kind)
	cfg := Config{URL: srv.URL, Kind: kind, MaxSteps: 10,
		Splits: map[string][]int{envbridge.SplitTrain: {0, 1}, envbridge.SplitValidUnseen: {2}}}
	if mut != nil {
		mut(&cfg)
	}
	s, err := NewSuite(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return f, s
}

func TestConformanceALFWorld(t *testing.T) {
	_, s := suite(t, ALFWorld, nil)
	envtest.Run(t, s, envtest.Options{})
}

func TestConformanceScienceWorld(t *testing.T) {
	_, s := suite(t, ScienceWorld, nil)
	envtest.Run(t, s, envtest.Options{FreeForm: true, Actions: []string{"heat water", "look around"}})
}

func TestALFWorld(t *testing.T) {
	_, s := suite(t, ALFWorld, nil)
	if s.Style() != envbridge.StyleHousehold || s.Name() != "agentgym:alfworld" {
		t.Errorf("Style, Name = %v, %v", s.Style(), s.Name())
	}
	if got := s.Splits(); !slices.Equal(got, []string{"train", "valid_unseen"}) {
		t.Errorf("Splits = %v", got)
	}
	ctx := context.Background()
	ts, _ := s.Tasks(envbridge.SplitTrain)
	tests := []struct {
		name    string
		actions []string
		want    envbridge.StepResult // of the last step
	}{
		{"won", []string{"take apple", "put apple in fridge"}, envbridge.StepResult{Reward: 1, Score: 1, MaxScore: 1, Done: true, Won: true}},
		{"server limit is not success", []string{"look", "look", "look", "look", "look", "put apple in fridge"}, envbridge.StepResult{MaxScore: 1, Done: true, Truncated: true}},
		{"not yet", []string{"take apple"}, envbridge.StepResult{MaxScore: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, err := s.OpenEnv(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer env.Close()
			obs, err := env.Reset(ctx, ts[1])
			if err != nil || !strings.Contains(obs.Text, "room 1") || len(obs.Admissible) != 3 {
				t.Fatalf("Reset = %+v, %v", obs, err)
			}
			var res envbridge.StepResult
			for _, a := range tt.actions {
				if res, err = env.Step(ctx, a); err != nil {
					t.Fatal(err)
				}
			}
			res.Observation = envbridge.Observation{}
			if !reflect.DeepEqual(res, tt.want) {
				t.Errorf("last step = %+v, want %+v", res, tt.want)
			}
			acts, err := env.AvailableActions(ctx)
			if err != nil || len(acts) != 3 {
				t.Errorf("AvailableActions = %v, %v", acts, err)
			}
			o, err := env.Observation(ctx)
			if err != nil || o == "" {
				t.Errorf("Observation = %q, %v", o, err)
			}
		})
	}
}

func TestScienceWorld(t *testing.T) {
	_, s := suite(t, ScienceWorld, nil)
	ctx := context.Background()
	ts, _ := s.Tasks(envbridge.SplitTrain)
	tests := []struct {
		name    string
		actions []string
		want    envbridge.StepResult
	}{
		{"success at 100", []string{"heat water", "focus on water"}, envbridge.StepResult{Reward: 75, Score: 100, MaxScore: 100, Done: true, Won: true}},
		{"negative is lost", []string{"heat water", "eat poison"}, envbridge.StepResult{Reward: -125, Score: -100, MaxScore: 100, Done: true, Lost: true}},
		{"partial", []string{"heat water", "heat water"}, envbridge.StepResult{Reward: 25, Score: 50, MaxScore: 100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, err := s.OpenEnv(ctx)
			if err != nil {
				t.Fatal(err)
			}
			obs, err := env.Reset(ctx, ts[0])
			if err != nil || obs.Admissible != nil || !strings.HasPrefix(obs.Text, "Your task is to boil water.") {
				t.Fatalf("Reset = %+v, %v", obs, err)
			}
			var res envbridge.StepResult
			for _, a := range tt.actions {
				if res, err = env.Step(ctx, a); err != nil {
					t.Fatal(err)
				}
			}
			res.Observation = envbridge.Observation{}
			if !reflect.DeepEqual(res, tt.want) {
				t.Errorf("last step = %+v, want %+v", res, tt.want)
			}
		})
	}
}

func TestServerErrors(t *testing.T) {
	ctx := context.Background()
	t.Run("error body with HTTP 200", func(t *testing.T) {
		_, s := suite(t, ALFWorld, func(c *Config) { c.Splits = map[string][]int{"train": {7}} })
		env, err := s.OpenEnv(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ts, _ := s.Tasks("train")
		_, err = env.Reset(ctx, ts[0])
		if !errors.Is(err, ErrServer) || !strings.Contains(err.Error(), "list index out of range") {
			t.Errorf("Reset(game 7) = %v, want ErrServer quoting the server", err)
		}
	})
	t.Run("unknown id", func(t *testing.T) {
		_, s := suite(t, ALFWorld, nil)
		env := &Env{s: s, id: 42}
		if _, err := env.Observation(ctx); !errors.Is(err, ErrServer) || !strings.Contains(err.Error(), "not valid") {
			t.Errorf("Observation(42) = %v", err)
		}
	})
	t.Run("bad world type", func(t *testing.T) {
		_, s := suite(t, ALFWorld, func(c *Config) { c.WorldType = "Dream" })
		env, _ := s.OpenEnv(ctx)
		ts, _ := s.Tasks("train")
		if _, err := env.Reset(ctx, ts[0]); !errors.Is(err, ErrServer) {
			t.Errorf("Reset = %v", err)
		}
	})
	t.Run("HTTP 500", func(t *testing.T) {
		f, s := suite(t, ALFWorld, nil)
		f.status = 500
		if _, err := s.Open(ctx); !errors.Is(err, ErrServer) || !strings.Contains(err.Error(), "500") {
			t.Errorf("Open = %v", err)
		}
	})
	t.Run("body too large", func(t *testing.T) {
		f, s := suite(t, ALFWorld, func(c *Config) { c.MaxBodyBytes = 1 << 16 })
		f.huge = true
		if _, err := s.Open(ctx); !errors.Is(err, ErrBadResponse) {
			t.Errorf("Open = %v", err)
		}
	})
	t.Run("server down", func(t *testing.T) {
		_, srv := newFake(t, ALFWorld)
		s, _ := NewSuite(Config{URL: srv.URL, Kind: ALFWorld, Splits: map[string][]int{"train": {0}}})
		srv.Close()
		if _, err := s.Open(ctx); err == nil {
			t.Errorf("Open on a closed server: no error")
		}
	})
}

func TestConfig(t *testing.T) {
	tests := []Config{
		{Kind: ALFWorld, Splits: map[string][]int{"train": {0}}},
		{URL: "ftp://x", Kind: ALFWorld, Splits: map[string][]int{"train": {0}}},
		{URL: "http://x", Kind: "webshop", Splits: map[string][]int{"train": {0}}},
		{URL: "http://x", Kind: ALFWorld},
	}
	for _, c := range tests {
		if _, err := NewSuite(c); !errors.Is(err, ErrConfig) {
			t.Errorf("NewSuite(%+v) = %v, want ErrConfig", c, err)
		}
	}
}

func TestParseIndices(t *testing.T) {
	tests := []struct {
		in   string
		want []int
		ok   bool
	}{
		{"0-3,7", []int{0, 1, 2, 3, 7}, true},
		{" 5 ", []int{5}, true},
		{"", nil, true},
		{"3-1", nil, false},
		{"a", nil, false},
		{"-1", nil, false},
	}
	for _, tt := range tests {
		got, err := ParseIndices(tt.in)
		if (err == nil) != tt.ok || !slices.Equal(got, tt.want) {
			t.Errorf("ParseIndices(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

// FuzzDecode feeds arbitrary bodies to the server-answer decoders: no panic,
// and an {"error": ...} object is always seen as an error.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"error": "The id 3 is not valid."}`, `{"error": {"x": 1}}`, `{"observation": "hi", "reward": 1.0, "done": true}`, `{"error": null}`, `[]`, `"text"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		msg, isErr := errorField(body)
		var probe map[string]json.RawMessage
		if json.Unmarshal(body, &probe) == nil {
			if raw, ok := probe["error"]; ok && string(raw) != "null" && !isErr {
				t.Fatalf("error body %q not seen as an error", body)
			}
		}
		_ = msg
		var r stepReply
		_ = json.Unmarshal(body, &r)
		_ = quote(body)
	})
}

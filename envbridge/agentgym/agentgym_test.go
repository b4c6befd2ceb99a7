package agentgym

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/agentgym/agentgymtest"
	"github.com/samem/trainer/envbridge/envtest"
)

func suite(t *testing.T, kind Kind, mut func(*Config)) (*agentgymtest.Server, *Suite) {
	t.Helper()
	f, srv := agentgymtest.New(t, string(kind))
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
		f.Status = 500
		if _, err := s.Open(ctx); !errors.Is(err, ErrServer) || !strings.Contains(err.Error(), "500") {
			t.Errorf("Open = %v", err)
		}
	})
	t.Run("body too large", func(t *testing.T) {
		f, s := suite(t, ALFWorld, func(c *Config) { c.MaxBodyBytes = 1 << 16 })
		f.Huge = true
		if _, err := s.Open(ctx); !errors.Is(err, ErrBadResponse) {
			t.Errorf("Open = %v", err)
		}
	})
	t.Run("server down", func(t *testing.T) {
		_, srv := agentgymtest.New(t, string(ALFWorld))
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

// A ScienceWorld observation carries the server's action templates and the
// objects in view (GET /action_hint) after the reset and every step that
// does not end the episode; a server without the endpoint is asked once and
// its observations carry none.
func TestScienceWorldActionHints(t *testing.T) {
	ctx := context.Background()
	for _, noHints := range []bool{false, true} {
		f, s := suite(t, ScienceWorld, nil)
		f.NoHints = noHints
		ts, _ := s.Tasks(envbridge.SplitTrain)
		env, err := s.OpenEnv(ctx)
		if err != nil {
			t.Fatal(err)
		}
		obs, err := env.Reset(ctx, ts[0])
		if err != nil {
			t.Fatal(err)
		}
		res, err := env.Step(ctx, "heat water")
		if err != nil {
			t.Fatal(err)
		}
		if noHints {
			if obs.Templates != nil || obs.Objects != nil || res.Templates != nil {
				t.Errorf("no /action_hint: reset %+v, step %+v; want no templates", obs, res.Observation)
			}
			if _, err := env.Step(ctx, "heat water"); err != nil {
				t.Fatal(err)
			}
			continue
		}
		for _, o := range []envbridge.Observation{obs, res.Observation} {
			if !slices.Equal(o.Templates, agentgymtest.SciTemplates) || !slices.Contains(o.Objects, "stove") {
				t.Errorf("observation %+v: want the server's templates and objects", o)
			}
		}
		if res, err = env.Step(ctx, "focus on water"); err != nil || !res.Done || res.Templates != nil {
			t.Errorf("last step %+v, %v: want done without a hint", res, err)
		}
		if f.Hints() != 2 {
			t.Errorf("%d hints asked, want 2 (reset, first step)", f.Hints())
		}
	}
}

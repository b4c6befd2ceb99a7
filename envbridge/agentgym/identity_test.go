package agentgym

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/agentgym/agentgymtest"
	"github.com/samem/trainer/runner"
)

func types(ts []envbridge.Task) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Type)
	}
	return out
}

func TestIdentifyALFWorld(t *testing.T) {
	f, s := suite(t, ALFWorld, func(c *Config) { c.Splits = map[string][]int{envbridge.SplitTrain: {0, 1, 2, 3, 4, 5}} })
	before, _ := s.Tasks(envbridge.SplitTrain)
	// Without the server's word every task has one type: -per-type 2
	// would keep 2 tasks in all.
	if got := len(runner.PerType(before, 2)); got != 2 {
		t.Fatalf("before Identify, PerType(2) kept %d tasks, want the 2 of the one placeholder type", got)
	}
	if err := s.Identify(context.Background()); err != nil {
		t.Fatal(err)
	}
	ts, _ := s.Tasks(envbridge.SplitTrain)
	want := []string{"pick_and_place_simple", "pick_cool_then_place_in_recep", "pick_and_place_simple", "look_at_obj_in_light", "pick_cool_then_place_in_recep", "pick_and_place_simple"}
	if got := types(ts); !slices.Equal(got, want) {
		t.Errorf("types = %v, want %v", got, want)
	}
	for i, tk := range ts {
		if tk.Goal != agentgymtest.ALFGames[i].Goal {
			t.Errorf("task %d goal = %q, want the server's sentence %q", i, tk.Goal, agentgymtest.ALFGames[i].Goal)
		}
		if tk.MaxSteps != 10 {
			t.Errorf("task %d MaxSteps = %d, want the configured 10", i, tk.MaxSteps)
		}
	}
	// Per-type sampling (seed 002 Sec. 4.1): the first 2 of each type.
	picked := runner.PerType(ts, 2)
	var ids []string
	for _, tk := range picked {
		ids = append(ids, tk.ID)
	}
	if wantIDs := []string{"alfworld/train/0", "alfworld/train/1", "alfworld/train/2", "alfworld/train/3", "alfworld/train/4"}; !slices.Equal(ids, wantIDs) {
		t.Errorf("PerType(2) = %v, want %v", ids, wantIDs)
	}
	if f.Resets() != 6 {
		t.Errorf("Identify made %d resets, want one per index (6)", f.Resets())
	}
	id := s.Identities()[4]
	if id.Game != agentgymtest.ALFGames[4].Path {
		t.Errorf("identity of index 4 = %+v, want the game path %q", id, agentgymtest.ALFGames[4].Path)
	}
}

func TestIdentifyScienceWorldLevels(t *testing.T) {
	_, s := suite(t, ScienceWorld, func(c *Config) {
		c.MaxSteps = 0
		c.Splits = map[string][]int{envbridge.SplitTrain: {0, 1, 2, 3, 4, 5}}
	})
	if err := s.Identify(context.Background()); err != nil {
		t.Fatal(err)
	}
	ts, _ := s.Tasks(envbridge.SplitTrain)
	// boil is Level-3 (40 steps), find-plant Level-1 (20), chemistry-mix
	// Level-2 (20): seed 002 Appendix B.1, Figure 11.
	wantSteps := []int{40, 40, 40, 20, 20, 20}
	for i, tk := range ts {
		g := agentgymtest.SciGames[i]
		if tk.Type != g.Name || tk.Goal != g.Desc || tk.MaxSteps != wantSteps[i] {
			t.Errorf("task %d = %s %q %d steps, want %s %q %d", i, tk.Type, tk.Goal, tk.MaxSteps, g.Name, g.Desc, wantSteps[i])
		}
		if v := s.Identities()[i].Variation; v != g.Variation {
			t.Errorf("task %d variation %d, want %d", i, v, g.Variation)
		}
	}
	if got := len(runner.PerType(ts, 1)); got != 3 {
		t.Errorf("PerType(1) kept %d tasks, want one of each of the 3 types", got)
	}
	// A step limit the user set wins over the levels.
	_, s2 := suite(t, ScienceWorld, func(c *Config) { c.MaxSteps = 7; c.Known = s.Identities() })
	ts2, _ := s2.Tasks(envbridge.SplitTrain)
	if ts2[0].MaxSteps != 7 || ts2[0].Type != "boil" {
		t.Errorf("with -max-steps 7 and known identities: %+v", ts2[0])
	}
}

func TestLevelsCoverThirtyTypes(t *testing.T) {
	per := map[int]int{}
	for _, l := range sciworldLevel {
		per[l]++
	}
	// seed 002 Appendix B.1: 30 types, 10 per level.
	if len(sciworldLevel) != 30 || per[1] != 10 || per[2] != 10 || per[3] != 10 {
		t.Errorf("levels: %d types, per level %v; want 30 types, 10 per level", len(sciworldLevel), per)
	}
}

func TestKnownIdentitiesSkipTheServer(t *testing.T) {
	ctx := context.Background()
	_, s := suite(t, ALFWorld, nil)
	if err := s.Identify(ctx); err != nil {
		t.Fatal(err)
	}
	f2, s2 := suite(t, ALFWorld, nil)
	s2.Learn(s.Identities())
	if err := s2.Identify(ctx); err != nil {
		t.Fatal(err)
	}
	if f2.Resets() != 0 {
		t.Errorf("Identify with every identity known made %d resets, want 0", f2.Resets())
	}
	a, _ := s.Tasks(envbridge.SplitTrain)
	b, _ := s2.Tasks(envbridge.SplitTrain)
	if !slices.Equal(a, b) {
		t.Errorf("tasks from learnt identities %v differ from the server's %v", b, a)
	}
}

func TestResetRefusesAnotherServersTask(t *testing.T) {
	_, s := suite(t, ALFWorld, func(c *Config) {
		c.Known = map[int]Identity{0: {Type: "pick_two_obj_and_place", Goal: "put two cd in safe."}}
	})
	env, err := s.OpenEnv(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ts, _ := s.Tasks(envbridge.SplitTrain)
	_, err = env.Reset(context.Background(), ts[0])
	if !errors.Is(err, ErrBadResponse) || !strings.Contains(err.Error(), "pick_two_obj_and_place") {
		t.Errorf("Reset with a stale identity = %v, want ErrBadResponse naming both", err)
	}
}

// goalRecorder is a method that records the task it is started with and
// ends each episode at once.
type goalRecorder struct{ got []envbridge.Task }

func (g *goalRecorder) Name() string { return "recorder" }
func (g *goalRecorder) Start(_ context.Context, s agent.Start) (agent.Episode, error) {
	g.got = append(g.got, s.Task)
	return recEpisode{}, nil
}

type recEpisode struct{}

func (recEpisode) Act(context.Context, envbridge.Observation) (agent.Decision, error) {
	return agent.Decision{Action: "look"}, nil
}
func (recEpisode) Observe(context.Context, agent.Transition) error { return nil }
func (recEpisode) Finish(context.Context, agent.Outcome) error     { return nil }

// Even an unidentified suite gives the method the server's goal and type:
// the runner takes them from the Reset (envbridge.Describer), so the task
// text is the method's for the whole episode, not only in the first
// observation.
func TestRunnerGivesTheServersGoal(t *testing.T) {
	_, s := suite(t, ALFWorld, func(c *Config) { c.MaxSteps = 2 })
	env, err := s.OpenEnv(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ts, _ := s.Tasks(envbridge.SplitTrain)
	m := &goalRecorder{}
	rec, err := runner.Run(context.Background(), env, m, agent.Start{Task: ts[1], Mode: agent.Eval})
	if err != nil {
		t.Fatal(err)
	}
	want := agentgymtest.ALFGames[1]
	if len(m.got) != 1 || m.got[0].Goal != want.Goal || m.got[0].Type != "pick_cool_then_place_in_recep" {
		t.Fatalf("method started with %+v, want the server's goal %q", m.got, want.Goal)
	}
	if rec.Task.Goal != want.Goal || rec.Task.ID != ts[1].ID || rec.Outcome.Steps != 2 {
		t.Errorf("record = %+v, want the server's goal under the suite's ID after 2 steps", rec)
	}
}

// FuzzIdentity feeds arbitrary /reset bodies to the identity readers: no
// panic, and an accepted identity has a type and a goal.
func FuzzIdentity(f *testing.F) {
	f.Add([]byte(`{"id":0,"observation":"You are in room 0.\nYour task is to: put a mug in desk.","available_actions":[],"task_type":"pick_and_place_simple-Mug-None-Desk-301/trial_T1"}`))
	f.Add([]byte(`{"task_name":"boil","var_num":3,"task_description":"Your task is to boil water.","observation":"x","score":0}`))
	f.Add([]byte(`{"task_type":"-/","observation":"Your task is to: "}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var r resetReply
		if json.Unmarshal(body, &r) != nil {
			return
		}
		for _, read := range []func(resetReply) (Identity, error){alfworldIdentity, sciworldIdentity} {
			id, err := read(r)
			if err == nil && (strings.TrimSpace(id.Type) == "" || strings.TrimSpace(id.Goal) == "") {
				t.Fatalf("accepted %+v from %q", id, body)
			}
			if err != nil && !errors.Is(err, ErrBadResponse) {
				t.Fatalf("error %v is not ErrBadResponse", err)
			}
		}
	})
}

func TestIdentifyWorkersAndErrors(t *testing.T) {
	ctx := context.Background()
	var got [][]envbridge.Task
	for _, w := range []int{1, 3} {
		f, s := suite(t, ALFWorld, func(c *Config) {
			c.IdentifyWorkers = w
			c.Splits = map[string][]int{envbridge.SplitTrain: {5, 4, 3, 2, 1, 0}, envbridge.SplitValidUnseen: {0, 1}}
		})
		if err := s.Identify(ctx); err != nil {
			t.Fatal(err)
		}
		if f.Resets() != 6 {
			t.Errorf("%d workers: %d resets, want 6 (an index in two splits is asked once)", w, f.Resets())
		}
		ts, _ := s.Tasks(envbridge.SplitTrain)
		got = append(got, ts)
	}
	if !slices.Equal(got[0], got[1]) || got[0][0].Type != "pick_and_place_simple" || got[0][1].Type != "pick_cool_then_place_in_recep" {
		t.Errorf("tasks with 1 and 3 workers: %v / %v", got[0], got[1])
	}
	// An index the server does not have: an error naming it, the tasks unchanged.
	_, s := suite(t, ALFWorld, func(c *Config) { c.Splits = map[string][]int{envbridge.SplitTrain: {0, 1, 9, 2}} })
	err := s.Identify(ctx)
	if !errors.Is(err, ErrServer) || !strings.Contains(err.Error(), "index 9") {
		t.Errorf("Identify with index 9 = %v, want ErrServer naming index 9", err)
	}
	if ts, _ := s.Tasks(envbridge.SplitTrain); ts[0].Type != "alfworld" {
		t.Errorf("after a failed Identify the tasks changed: %+v", ts[0])
	}
}

package household

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/envtest"
	"github.com/samem/trainer/envbridge/household/hhtext"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// defaultSuite is built once: the default suite is read-only and shared.
var defaultSuite = func() *Suite {
	s, err := New(Config{})
	if err != nil {
		panic(err)
	}
	return s
}()

func TestConformance(t *testing.T) {
	for _, split := range defaultSuite.Splits() {
		t.Run(split, func(t *testing.T) {
			envtest.Run(t, defaultSuite, envtest.Options{Split: split, Tasks: 4})
		})
	}
	s04, err := New(Config{Seed: 3, Train: 20, ValidSeen: 10, ValidUnseen: 12, MaxSteps: 30, Grammar: Grammar04})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("grammar04", func(t *testing.T) { envtest.Run(t, s04, envtest.Options{Steps: 10}) })
}

// runExpert replays the expert on a task and fails unless it wins on its
// last step exactly; every action must be admissible when taken and every
// observation must be readable by hhtext.
func runExpert(t *testing.T, s *Suite, env *Env, task envbridge.Task, log *strings.Builder) {
	t.Helper()
	plan, err := s.Expert(task.ID)
	if err != nil {
		t.Fatalf("Expert(%s): %v", task.ID, err)
	}
	if len(plan) != task.OracleSteps || len(plan) > task.MaxSteps {
		t.Fatalf("%s: plan of %d steps, OracleSteps %d, MaxSteps %d", task.ID, len(plan), task.OracleSteps, task.MaxSteps)
	}
	obs, err := env.Reset(t.Context(), task)
	if err != nil {
		t.Fatalf("Reset(%s): %v", task.ID, err)
	}
	if ev := hhtext.ParseObservation(obs.Text); ev.Kind != hhtext.Start || ev.Task != task.Goal {
		t.Fatalf("%s: first observation parses as %+v", task.ID, ev)
	}
	if g, ok := hhtext.ParseGoal(task.Goal); !ok || g.Type != task.Type {
		t.Fatalf("%s: ParseGoal(%q) = %+v, %v", task.ID, task.Goal, g, ok)
	}
	if log != nil {
		fmt.Fprintf(log, "task %s\ngoal %s\noracle steps %d\n\n%s\n\nadmissible: %s\n", task.ID, task.Goal, task.OracleSteps, obs.Text, strings.Join(obs.Admissible, " | "))
	}
	for i, a := range plan {
		if !slices.Contains(obs.Admissible, a) {
			t.Fatalf("%s step %d: expert action %q not admissible in %q", task.ID, i+1, a, obs.Admissible)
		}
		res, err := env.Step(t.Context(), a)
		if err != nil {
			t.Fatalf("%s step %d Step(%q): %v", task.ID, i+1, a, err)
		}
		if ev := hhtext.ParseObservation(res.Text); ev.Kind == hhtext.Unknown || ev.Kind == hhtext.Nothing {
			t.Fatalf("%s step %d Step(%q) = %q, parsed as %v", task.ID, i+1, a, res.Text, ev.Kind)
		}
		if log != nil {
			fmt.Fprintf(log, "\n> %s\n%s\nreward %v score %v done %v won %v truncated %v\n", a, res.Text, res.Reward, res.Score, res.Done, res.Won, res.Truncated)
		}
		last := i == len(plan)-1
		if res.Won != last || res.Done != last || (last && res.Reward != 1) {
			t.Fatalf("%s step %d of %d: won %v done %v reward %v", task.ID, i+1, len(plan), res.Won, res.Done, res.Reward)
		}
		obs = res.Observation
	}
}

func TestExpertWinsEveryDefaultTask(t *testing.T) {
	env := defaultSuite.NewEnv()
	for _, split := range defaultSuite.Splits() {
		tasks, err := defaultSuite.Tasks(split)
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range tasks {
			runExpert(t, defaultSuite, env, task, nil)
		}
	}
}

func TestExpertGrammar04(t *testing.T) {
	s, err := New(Config{Seed: 9, Train: 30, ValidSeen: 12, ValidUnseen: 30, Grammar: Grammar04})
	if err != nil {
		t.Fatal(err)
	}
	env := s.NewEnv()
	for _, split := range s.Splits() {
		tasks, _ := s.Tasks(split)
		for _, task := range tasks {
			runExpert(t, s, env, task, nil)
		}
	}
}

// TestGolden pins the first observation and a full expert episode of the
// first valid_unseen task of each type (and one in the 0.4 grammar).
func TestGolden(t *testing.T) {
	tasks, _ := defaultSuite.Tasks(envbridge.SplitValidUnseen)
	s04, err := New(Config{Grammar: Grammar04})
	if err != nil {
		t.Fatal(err)
	}
	type golden struct {
		name string
		s    *Suite
		task envbridge.Task
	}
	var cases []golden
	for _, typ := range TaskTypes() {
		i := slices.IndexFunc(tasks, func(tk envbridge.Task) bool { return tk.Type == typ })
		cases = append(cases, golden{typ, defaultSuite, tasks[i]})
	}
	i := slices.IndexFunc(tasks, func(tk envbridge.Task) bool { return tk.Type == hhtext.PickCool })
	cases = append(cases, golden{"grammar04_" + hhtext.PickCool, s04, tasks[i]})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var log strings.Builder
			runExpert(t, c.s, c.s.NewEnv(), c.task, &log)
			path := filepath.Join("testdata", c.name+".golden")
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(log.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got := log.String(); got != string(want) {
				t.Errorf("episode of %s differs from %s:\n%s", c.task.ID, path, got)
			}
		})
	}
}

func TestDeterminism(t *testing.T) {
	cfg := Config{Seed: 42, Train: 60, ValidSeen: 20, ValidUnseen: 30}
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(Config{Seed: 43, Train: 60, ValidSeen: 20, ValidUnseen: 30})
	if err != nil {
		t.Fatal(err)
	}
	differs := false
	for _, split := range a.Splits() {
		ta, _ := a.Tasks(split)
		tb, _ := b.Tasks(split)
		tc, _ := c.Tasks(split)
		if !reflect.DeepEqual(ta, tb) {
			t.Fatalf("split %s: task lists differ for the same seed", split)
		}
		differs = differs || !reflect.DeepEqual(ta, tc)
		for _, task := range ta {
			ea, eb := a.NewEnv(), b.NewEnv()
			oa, _ := ea.Reset(t.Context(), task)
			ob, _ := eb.Reset(t.Context(), task)
			pa, _ := a.Expert(task.ID)
			pb, _ := b.Expert(task.ID)
			sa, _ := a.Scene(task.ID)
			sb, _ := b.Scene(task.ID)
			if oa.Text != ob.Text || !slices.Equal(oa.Admissible, ob.Admissible) || !slices.Equal(pa, pb) || !reflect.DeepEqual(sa, sb) {
				t.Fatalf("task %s: texts, plans or scenes differ for the same seed", task.ID)
			}
		}
	}
	if !differs {
		t.Errorf("seeds 42 and 43 gave the same tasks")
	}
	// A split's tasks do not depend on the other splits' sizes.
	d, err := New(Config{Seed: 42, Train: 61, ValidSeen: 20, ValidUnseen: 30})
	if err != nil {
		t.Fatal(err)
	}
	ua, _ := a.Tasks(envbridge.SplitValidUnseen)
	ud, _ := d.Tasks(envbridge.SplitValidUnseen)
	if !reflect.DeepEqual(ua, ud) {
		t.Errorf("valid_unseen changed when train was resized")
	}
}

func TestSplits(t *testing.T) {
	s := defaultSuite
	want := map[string]int{envbridge.SplitTrain: 600, envbridge.SplitValidSeen: 140, envbridge.SplitValidUnseen: 134}
	mix := map[string]int{}
	trainLayouts, trainPairs := map[string]bool{}, map[pairKey]bool{}
	ids := map[string]bool{}
	hidden, total := 0, 0
	for _, split := range s.Splits() {
		tasks, _ := s.Tasks(split)
		if len(tasks) != want[split] {
			t.Errorf("split %s has %d tasks, want %d", split, len(tasks), want[split])
		}
		for _, task := range tasks {
			if ids[task.ID] {
				t.Fatalf("duplicate id %s", task.ID)
			}
			ids[task.ID] = true
			sc, err := s.Scene(task.ID)
			if err != nil {
				t.Fatal(err)
			}
			dest := sc.Goal.Receptacle + sc.Goal.Lamp
			p := pairKey{sc.Goal.Object, dest}
			switch split {
			case envbridge.SplitTrain:
				trainLayouts[sc.Layout], trainPairs[p] = true, true
			case envbridge.SplitValidUnseen:
				mix[task.Type]++
				if trainLayouts[sc.Layout] {
					t.Errorf("valid_unseen task %s uses train layout %s", task.ID, sc.Layout)
				}
				if trainPairs[p] {
					t.Errorf("valid_unseen task %s uses train pairing %v", task.ID, p)
				}
			case envbridge.SplitValidSeen:
				if !trainLayouts[sc.Layout] {
					t.Errorf("valid_seen task %s uses layout %s, not a train layout", task.ID, sc.Layout)
				}
			}
			// Exploration: is some target inside a closed receptacle?
			openable := map[string]bool{}
			for _, r := range sc.Receptacles {
				openable[r.Name] = r.Openable
				if r.Opened {
					t.Errorf("%s: %s starts open", task.ID, r.Name)
				}
			}
			total++
			for _, o := range sc.Objects {
				if o.Kind == sc.Goal.Object && openable[o.Location] {
					hidden++
					break
				}
			}
		}
	}
	wantMix := map[string]int{hhtext.PickAndPlace: 24, hhtext.PickClean: 31, hhtext.PickHeat: 23, hhtext.PickCool: 21, hhtext.LookInLight: 18, hhtext.PickTwo: 17}
	if !reflect.DeepEqual(mix, wantMix) {
		t.Errorf("valid_unseen mix = %v, want %v", mix, wantMix)
	}
	if frac := float64(hidden) / float64(total); frac < 0.3 {
		t.Errorf("only %.2f of tasks hide a target in a closed receptacle, want >= 0.3", frac)
	}
	t.Logf("%d of %d tasks hide a target in a closed receptacle", hidden, total)
	unseen, _ := s.Tasks(envbridge.SplitValidUnseen)
	sum, n := map[string]int{}, map[string]int{}
	for _, task := range unseen {
		sum[task.Type] += task.OracleSteps
		n[task.Type]++
	}
	for _, typ := range TaskTypes() {
		t.Logf("valid_unseen %s: mean oracle steps %.2f (paper Table 4: %d)", typ, float64(sum[typ])/float64(n[typ]), PaperOracleSteps()[typ])
	}
}

func TestSceneMatchesText(t *testing.T) {
	tasks, _ := defaultSuite.Tasks(envbridge.SplitValidUnseen)
	for _, task := range tasks[:20] {
		sc, err := defaultSuite.Scene(task.ID)
		if err != nil {
			t.Fatal(err)
		}
		env := defaultSuite.NewEnv()
		obs, _ := env.Reset(t.Context(), task)
		var names []string
		for _, r := range sc.Receptacles {
			names = append(names, r.Name)
		}
		if ev := hhtext.ParseObservation(obs.Text); !slices.Equal(ev.Items, names) {
			t.Errorf("%s: room lists %q, scene %q", task.ID, ev.Items, names)
		}
		// Visiting every receptacle (opening the closed ones) shows exactly
		// the scene's objects.
		seen := map[string]string{}
		for _, r := range sc.Receptacles {
			res, _ := env.Step(t.Context(), "go to "+r.Name)
			if r.Openable {
				res, _ = env.Step(t.Context(), "open "+r.Name)
			}
			ev := hhtext.ParseObservation(res.Text)
			for _, it := range ev.Items {
				seen[it] = r.Name
			}
		}
		want := map[string]string{}
		for _, o := range sc.Objects {
			want[o.Name] = o.Location
		}
		if !reflect.DeepEqual(seen, want) {
			t.Errorf("%s: seen %v, scene %v", task.ID, seen, want)
		}
	}
}

// findTask returns the first default task of a type whose scene satisfies ok.
func findTask(t *testing.T, typ string, ok func(Scene) bool) (envbridge.Task, Scene) {
	t.Helper()
	for _, split := range defaultSuite.Splits() {
		tasks, _ := defaultSuite.Tasks(split)
		for _, task := range tasks {
			sc, _ := defaultSuite.Scene(task.ID)
			if task.Type == typ && ok(sc) {
				return task, sc
			}
		}
	}
	t.Fatalf("no %s task fits", typ)
	return envbridge.Task{}, Scene{}
}

func TestRules(t *testing.T) {
	// A heat task whose target is inside a closed receptacle.
	task, sc := findTask(t, hhtext.PickHeat, func(sc Scene) bool {
		for _, o := range sc.Objects {
			if o.Kind == sc.Goal.Object && strings.HasPrefix(o.Location, "cabinet") || strings.HasPrefix(o.Location, "drawer") || strings.HasPrefix(o.Location, "fridge") {
				return o.Kind == sc.Goal.Object
			}
		}
		return false
	})
	var target SceneObject
	for _, o := range sc.Objects {
		if o.Kind == sc.Goal.Object && (strings.HasPrefix(o.Location, "cabinet") || strings.HasPrefix(o.Location, "drawer") || strings.HasPrefix(o.Location, "fridge")) {
			target = o
			break
		}
	}
	var other SceneObject
	for _, o := range sc.Objects {
		if o.Location != target.Location && o.Pickable {
			other = o
			break
		}
	}
	at, obj := target.Location, target.Name
	steps := []struct{ action, want string }{
		{"take " + obj + " from " + at, "Nothing happens."},
		{"go to " + at, "You arrive at " + at + ". The " + at + " is closed."},
		{"take " + obj + " from " + at, "Nothing happens."},
		{"heat " + obj + " with microwave 1", "Nothing happens."},
		{"Open  " + strings.ToUpper(at), "You open the " + at + ". The " + at + " is open. In it, you see "},
		{"take " + obj + " from " + at, "You pick up the " + obj + " from the " + at + "."},
		{"take " + other.Name + " from " + other.Location, "Nothing happens."},
		{"inventory", "You are carrying: a " + obj + "."},
		{"heat " + obj + " with microwave 1", "Nothing happens."},
		{"close " + at, "You close the " + at + "."},
		{"look", "You are facing the " + at + ". Next to it, you see nothing."},
		{"examine " + obj, "There's nothing special about " + obj + "."},
		{"go to microwave 1", "You arrive at microwave 1. The microwave 1 is closed."},
		{"heat " + obj + " with microwave 1", "You heat the " + obj + " using the microwave 1."},
		{"put " + obj + " in microwave 1", "Nothing happens."},
		{"go to " + at, "You arrive at " + at + ". The " + at + " is closed."},
		{"put " + obj + " in " + at, "Nothing happens."},
		{"", "Nothing happens."},
		{"dance wildly", "Nothing happens."},
	}
	env := defaultSuite.NewEnv()
	if _, err := env.Reset(t.Context(), task); err != nil {
		t.Fatal(err)
	}
	for i, st := range steps {
		res, err := env.Step(t.Context(), st.action)
		if err != nil {
			t.Fatalf("step %d Step(%q): %v", i, st.action, err)
		}
		if !strings.HasPrefix(res.Text, st.want) {
			t.Errorf("step %d Step(%q) = %q, want %q", i, st.action, res.Text, st.want)
		}
		if res.Done {
			t.Fatalf("step %d: done early", i)
		}
	}
}

func TestLookNeedsLampAndObject(t *testing.T) {
	task, sc := findTask(t, hhtext.LookInLight, func(Scene) bool { return true })
	var lamp, target SceneObject
	for _, o := range sc.Objects {
		if o.Light {
			lamp = o
		}
		if o.Kind == sc.Goal.Object && target.Name == "" {
			target = o
		}
	}
	env := defaultSuite.NewEnv()
	env.Reset(t.Context(), task)
	env.Step(t.Context(), "go to "+lamp.Location)
	res, _ := env.Step(t.Context(), "use "+lamp.Name)
	if res.Text != "You turn on the "+lamp.Name+"." || res.Won {
		t.Fatalf("use lamp without object = %q won %v", res.Text, res.Won)
	}
	if lamp.Location != target.Location {
		env.Step(t.Context(), "go to "+target.Location)
	}
	env.Step(t.Context(), "open "+target.Location)
	res, _ = env.Step(t.Context(), "take "+target.Name+" from "+target.Location)
	if res.Won != (lamp.Location == target.Location) {
		t.Fatalf("take %s = %q won %v", target.Name, res.Text, res.Won)
	}
	if !res.Won {
		res, _ = env.Step(t.Context(), "go to "+lamp.Location)
		if !res.Won {
			t.Fatalf("holding %s by the lit lamp is not a win: %q", target.Name, res.Text)
		}
	}
}

func TestTruncation(t *testing.T) {
	tasks, _ := defaultSuite.Tasks(envbridge.SplitTrain)
	env := defaultSuite.NewEnv()
	env.Reset(t.Context(), tasks[0])
	for i := 1; i <= DefaultMaxSteps; i++ {
		res, err := env.Step(t.Context(), "look")
		if err != nil {
			t.Fatal(err)
		}
		if res.Done != (i == DefaultMaxSteps) || res.Truncated != res.Done || res.Won {
			t.Fatalf("step %d: done %v truncated %v won %v", i, res.Done, res.Truncated, res.Won)
		}
	}
	if _, err := env.Step(t.Context(), "look"); !errors.Is(err, envbridge.ErrEpisodeOver) {
		t.Errorf("Step after truncation error = %v, want ErrEpisodeOver", err)
	}
}

func TestErrors(t *testing.T) {
	s := defaultSuite
	if _, err := s.Expert("nope"); !errors.Is(err, envbridge.ErrUnknownTask) {
		t.Errorf("Expert(nope) error = %v", err)
	}
	if _, err := s.Scene("nope"); !errors.Is(err, envbridge.ErrUnknownTask) {
		t.Errorf("Scene(nope) error = %v", err)
	}
	if _, err := s.Tasks("test"); !errors.Is(err, envbridge.ErrUnknownSplit) {
		t.Errorf("Tasks(test) error = %v", err)
	}
	env := s.NewEnv()
	if _, err := env.Reset(t.Context(), envbridge.Task{ID: "nope"}); !errors.Is(err, envbridge.ErrUnknownTask) {
		t.Errorf("Reset(nope) error = %v", err)
	}
	if _, err := env.Step(t.Context(), "look"); !errors.Is(err, envbridge.ErrEpisodeOver) {
		t.Errorf("Step before Reset error = %v", err)
	}
	env.Close()
	if _, err := env.Step(t.Context(), "look"); !errors.Is(err, envbridge.ErrClosed) {
		t.Errorf("Step after Close error = %v", err)
	}
	for _, cfg := range []Config{{Train: -1}, {MaxSteps: -5}, {Grammar: 7}, {ValidUnseen: 1 << 30}} {
		if _, err := New(cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("New(%+v) error = %v, want ErrConfig", cfg, err)
		}
	}
}

func TestParseAction(t *testing.T) {
	tests := []struct {
		in   string
		want Action
		ok   bool
	}{
		{"go to cabinet 1", Action{VerbGoTo, "", "cabinet 1"}, true},
		{"  Go  TO Cabinet 1. ", Action{VerbGoTo, "", "cabinet 1"}, true},
		{"take apple 1 from countertop 2", Action{VerbTake, "apple 1", "countertop 2"}, true},
		{"put apple 1 in/on fridge 1", Action{VerbPut, "apple 1", "fridge 1"}, true},
		{"put apple 1 on fridge 1", Action{VerbPut, "apple 1", "fridge 1"}, true},
		{"move apple 1 to fridge 1", Action{VerbPut, "apple 1", "fridge 1"}, true},
		{"heat egg 1 with microwave 1", Action{VerbHeat, "egg 1", "microwave 1"}, true},
		{"use desklamp 1", Action{VerbUse, "", "desklamp 1"}, true},
		{"inventory", Action{Verb: VerbInventory}, true},
		{"take apple 1", Action{}, false},
		{"go to", Action{}, false},
		{"fly", Action{}, false},
	}
	for _, tc := range tests {
		got, ok := ParseAction(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseAction(%q) = %+v, %v, want %+v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	if got := (Action{VerbPut, "apple 1", "fridge 1"}).String(Grammar04); got != "move apple 1 to fridge 1" {
		t.Errorf("String(Grammar04) = %q", got)
	}
}

func TestPaperOracleSteps(t *testing.T) {
	m := PaperOracleSteps()
	want := map[string]int{hhtext.PickAndPlace: 4, hhtext.PickClean: 6, hhtext.PickHeat: 7, hhtext.PickCool: 6, hhtext.LookInLight: 4, hhtext.PickTwo: 8}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("PaperOracleSteps() = %v", m)
	}
	m[hhtext.PickTwo] = 0
	if PaperOracleSteps()[hhtext.PickTwo] != 8 {
		t.Errorf("PaperOracleSteps shares its map")
	}
}

func FuzzParseAction(f *testing.F) {
	tasks, _ := defaultSuite.Tasks(envbridge.SplitValidUnseen)
	for _, s := range []string{"go to cabinet 1", "put apple 1 in/on fridge 1", "move a to b", "take x from y", "  LOOK ", "put  in ", "examine"} {
		f.Add(s)
	}
	env := defaultSuite.NewEnv()
	f.Fuzz(func(t *testing.T, s string) {
		a, ok := ParseAction(s)
		if ok {
			if a.Verb == VerbNone {
				t.Fatalf("ParseAction(%q) ok with no verb", s)
			}
			again, ok2 := ParseAction(a.String(Grammar03))
			if !ok2 || again != a {
				t.Fatalf("ParseAction(%q) = %+v; reparse of %q = %+v, %v", s, a, a.String(Grammar03), again, ok2)
			}
		}
		env.Reset(t.Context(), tasks[len(s)%len(tasks)])
		if _, err := env.Step(t.Context(), s); err != nil {
			t.Fatalf("Step(%q): %v", s, err)
		}
	})
}

// BenchmarkStep measures steps per second of a random admissible walk,
// admissible list included (target: >= 100,000 steps/s on one core).
func BenchmarkStep(b *testing.B) {
	tasks, _ := defaultSuite.Tasks(envbridge.SplitValidUnseen)
	env := defaultSuite.NewEnv()
	r := rand.New(rand.NewPCG(1, 2))
	ctx := b.Context()
	ti := 0
	obs, _ := env.Reset(ctx, tasks[ti])
	b.ReportAllocs()
	for b.Loop() {
		res, err := env.Step(ctx, obs.Admissible[r.IntN(len(obs.Admissible))])
		if err != nil {
			b.Fatal(err)
		}
		obs = res.Observation
		if res.Done {
			ti = (ti + 1) % len(tasks)
			obs, _ = env.Reset(ctx, tasks[ti])
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
}

// BenchmarkNew measures generating a suite whose splits total n tasks
// (n/2 train, n/4 each valid split), experts included.
func BenchmarkNew(b *testing.B) {
	for _, n := range []int{100, 874, 4000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				if _, err := New(Config{Train: n / 2, ValidSeen: n / 4, ValidUnseen: n - n/2 - n/4}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "tasks/s")
		})
	}
}

// TestOtherSeeds checks that other seeds also give suites whose every task
// the expert wins (a generator bug would show as an error or a loss).
func TestOtherSeeds(t *testing.T) {
	seeds := []int64{1, 2, 7, -5, 1 << 40}
	if s := os.Getenv("HOUSEHOLD_SEEDS"); s != "" {
		seeds = nil
		for i := range 40 {
			seeds = append(seeds, int64(i)*7919)
		}
	}
	for _, seed := range seeds {
		cfg := Config{Seed: seed, Train: 60, ValidSeen: 30, ValidUnseen: 134}
		if os.Getenv("HOUSEHOLD_SEEDS") != "" {
			cfg = Config{Seed: seed}
		}
		s, err := New(cfg)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		env := s.NewEnv()
		for _, split := range s.Splits() {
			tasks, _ := s.Tasks(split)
			for _, task := range tasks {
				runExpert(t, s, env, task, nil)
			}
		}
	}
}

package offline

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household"
	thoughtoff "github.com/samem/trainer/thought/offline"
)

// smallSuite is a household world small enough for unit tests.
func smallSuite(t *testing.T, maxSteps int) *household.Suite {
	t.Helper()
	s, err := household.New(household.Config{Seed: 3, Train: 12, ValidSeen: 6, ValidUnseen: 12, MaxSteps: maxSteps})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// taskOf returns the first task of a type in a split.
func taskOf(t *testing.T, s *household.Suite, split, typ string) envbridge.Task {
	t.Helper()
	tasks, err := s.Tasks(split)
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		if task.Type == typ {
			return task
		}
	}
	t.Fatalf("no %s task in %s", typ, split)
	return envbridge.Task{}
}

// play resets env to task, feeds a tracker the first observation and the
// results of actions, and returns the tracker and the last observation.
func play(t *testing.T, s *household.Suite, task envbridge.Task, actions []string) (*tracker, envbridge.Observation) {
	t.Helper()
	ctx := context.Background()
	env := s.NewEnv()
	obs, err := env.Reset(ctx, task)
	if err != nil {
		t.Fatal(err)
	}
	tr := newTracker(task, envbridge.StyleHousehold)
	tr.observe("", obs.Text)
	for _, a := range actions {
		res, err := env.Step(ctx, a)
		if err != nil {
			t.Fatalf("step %q: %v", a, err)
		}
		tr.observe(a, res.Text)
		obs = res.Observation
	}
	return tr, obs
}

func TestTrackerHousehold(t *testing.T) {
	s := smallSuite(t, 0)
	task := taskOf(t, s, envbridge.SplitTrain, "pick_and_place_simple")
	plan, err := s.Expert(task.ID)
	if err != nil {
		t.Fatal(err)
	}
	first := plan[0] // a "go to" the expert takes
	tr, _ := play(t, s, task, []string{"inventory", "look", "take nothing from nowhere", first})
	// Before the walk the three actions had no effect in the starting
	// situation; after it the agent is elsewhere and nothing is spent.
	for _, a := range []string{"inventory", "look", "take nothing from nowhere", first} {
		if tr.isSpent(a) {
			t.Errorf("after %q, %q is spent in the new situation", first, a)
		}
	}
	if got := tr.noEffect[classInventory] + tr.noEffect[classLook] + tr.noEffect[classTake]; got != 3 {
		t.Errorf("no-effect counts %v, want inventory, look and take once each", tr.noEffect)
	}
	tr2, obs := play(t, s, task, []string{"inventory", "look", "take nothing from nowhere"})
	for _, a := range []string{"inventory", "LOOK", "take nothing from nowhere."} {
		if !tr2.isSpent(a) {
			t.Errorf("%q had no effect here but is not spent", a)
		}
	}
	if tr2.isSpent(first) {
		t.Errorf("%q was never taken but is spent", first)
	}
	// Pruning drops spent actions and keeps the rest in order; a list of
	// spent actions only is left whole.
	pruned := tr2.prune(obs.Admissible, nil)
	if slices.Contains(pruned, "inventory") || slices.Contains(pruned, "look") || !slices.Contains(pruned, first) {
		t.Errorf("prune kept spent actions or dropped %q: %v", first, pruned)
	}
	if got := tr2.prune([]string{"inventory", "look"}, nil); !slices.Equal(got, []string{"inventory", "look"}) {
		t.Errorf("prune of spent actions only = %v, want them all", got)
	}
	if got := tr2.prune([]string{first, "examine x"}, map[string]bool{classGo: true}); !slices.Equal(got, []string{"examine x"}) {
		t.Errorf("prune avoiding go = %v", got)
	}
	if tr2.prune(nil, nil) != nil {
		t.Error("prune(nil) is not nil: free-form games would get an empty list")
	}
}

func TestTrackerText(t *testing.T) {
	const hall, garden, refusal = "Hall. A doorway north.", "Garden. A key.", "You can't do that here."
	tr := newTracker(envbridge.Task{}, envbridge.StyleFiction)
	tr.observe("", hall)
	tr.observe("look", "Hall.  A doorway\nnorth.")
	if !tr.isSpent("look") {
		t.Error("look gave the same text but is not spent")
	}
	tr.observe("north", garden)
	if tr.isSpent("look") || tr.isSpent("north") {
		t.Errorf("in the garden, look or north is spent: %v", tr.spent)
	}
	tr.observe("inventory", refusal) // not yet known as generic: a new situation
	tr.observe("south", hall)
	tr.observe("take hall", refusal) // a second action got it: generic, no effect
	if !tr.isSpent("take hall") || tr.before != hall {
		t.Errorf("after a generic refusal in the hall: take hall spent %v, situation %q", tr.isSpent("take hall"), tr.before)
	}
	tr.observe("north", garden)
	if tr.isSpent("look") || tr.isSpent("take hall") {
		t.Errorf("back in the garden, hall actions are spent: %v", tr.spent)
	}
	want := map[string]int{classLook: 1, classTake: 1}
	if len(tr.noEffect) != len(want) || tr.noEffect[classLook] != 1 || tr.noEffect[classTake] != 1 {
		t.Errorf("noEffect = %v, want %v", tr.noEffect, want)
	}
}

func TestActionClass(t *testing.T) {
	for a, want := range map[string]string{
		"inventory": classInventory, "go to desk 1": classGo, "north": classGo, "put pen 1 in/on desk 1": classPlace,
		"move pen 1 to desk 1": classPlace, "heat apple 1 with microwave 1": classProcess, "use desklamp 1": classUse,
		"": classOther, "xyzzy": classOther, "Look": classLook, "examine desk 1": classExamine,
	} {
		if got := actionClass(a); got != want {
			t.Errorf("actionClass(%q) = %q, want %q", a, got, want)
		}
		if classPhrases[actionClass(a)] == "" {
			t.Errorf("class %q has no phrase", actionClass(a))
		}
	}
}

// TestStageLessons follows the expert's plan of one task per type: after
// each prefix the lesson of a trial stopped there names a stage no earlier
// than after the previous prefix, the processing, lamp and second-object
// stages appear exactly for their task types, and the whole plan leaves
// nothing to learn.
func TestStageLessons(t *testing.T) {
	s := smallSuite(t, 0)
	for _, tc := range []struct {
		typ  string
		must []string
		not  []string
	}{
		{"pick_and_place_simple", []string{lessonTake, lessonPlace}, []string{lessonProcess, lessonLamp, lessonSecond}},
		{"pick_heat_then_place_in_recep", []string{lessonTake, lessonProcess, lessonDeliver, lessonPlace}, []string{lessonLamp, lessonSecond}},
		{"look_at_obj_in_light", []string{lessonTake, lessonLamp}, []string{lessonProcess, lessonPlace, lessonSecond}},
		{"pick_two_obj_and_place", []string{lessonTake, lessonPlace, lessonSecond}, []string{lessonProcess, lessonLamp}},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			task := taskOf(t, s, envbridge.SplitTrain, tc.typ)
			plan, err := s.Expert(task.ID)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			prev := -1
			for k := 0; k <= len(plan); k++ {
				tr, _ := play(t, s, task, plan[:k])
				l := stageLesson(tr)
				if k == len(plan) {
					if l != "" {
						t.Errorf("after the whole plan the lesson is %q, want none", l)
					}
					break
				}
				i := slices.Index(stageLessons, l)
				if i < 0 {
					t.Fatalf("after %d of %d actions: lesson %q is not a stage lesson", k, len(plan), l)
				}
				if i < prev {
					t.Errorf("after %d actions (%q) the lesson went back to %q", k, plan[max(0, k-1)], l)
				}
				prev = max(prev, i)
				seen[l] = true
			}
			for _, l := range tc.must {
				if !seen[l] {
					t.Errorf("lesson %q never given along the plan; saw %v", short(l, 40), keys(seen))
				}
			}
			for _, l := range tc.not {
				if seen[l] {
					t.Errorf("lesson %q given for a %s task", short(l, 40), tc.typ)
				}
			}
		})
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, short(k, 30))
	}
	slices.Sort(out)
	return out
}

func TestOfflineReflectionAndLessons(t *testing.T) {
	s := smallSuite(t, 0)
	task := taskOf(t, s, envbridge.SplitTrain, "pick_heat_then_place_in_recep")
	tr, _ := play(t, s, task, []string{"inventory", "inventory", "look"})
	r := offlineReflection(tr)
	if !strings.Contains(r, "Checking the inventory"+repeatSuffix) || strings.Contains(r, "Looking around") {
		t.Errorf("reflection %q should name the inventory (repeated twice) and not the single look", r)
	}
	l := readLessons([]string{r, "free text from a model"})
	if !l.avoid[classInventory] || len(l.avoid) != 1 {
		t.Errorf("lessons avoid %v, want inventory only", l.avoid)
	}
	// The agent stands in the middle of the room holding nothing: a stage
	// lesson about finding the target guides a search, and one about
	// taking it does not apply yet.
	stage := slices.Collect(func(yield func(string) bool) {
		for k := range l.stage {
			if !yield(k) {
				return
			}
		}
	})
	if len(stage) != 1 {
		t.Fatalf("stage lessons %v, want one", stage)
	}
	if got := l.guide(tr.b); got != "" && stage[0] != lessonFind && stage[0] != lessonTake {
		t.Errorf("guide %q for lesson %q", got, stage[0])
	}
	if got := readLessons([]string{lessonFind}).guide(tr.b); got != thoughtoff.Search && got != thoughtoff.OpenHere {
		t.Errorf("find lesson guides %q, want a search", got)
	}
	if got := readLessons([]string{lessonPlace}).guide(tr.b); got != "" {
		t.Errorf("place lesson guides %q with nothing held, want none", got)
	}
	if got := offlineReflection(newTracker(envbridge.Task{}, envbridge.StyleFiction)); got != "" {
		t.Errorf("reflection on an empty free-form trial = %q, want none", got)
	}
}

func short(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

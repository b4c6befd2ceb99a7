package household

import (
	"context"
	"strings"
	"testing"

	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household/hhtext"
)

// The expert's plan reaches the subgoals in order: progress never falls,
// reaches every level of its type on the way, and is 1 at the win; an
// action outside the admissible list is not accepted, one in another case
// or grammar form is.
func TestProgressAlongTheExpert(t *testing.T) {
	s, err := New(Config{Seed: 5, Train: 30, ValidSeen: 12, ValidUnseen: 30})
	if err != nil {
		t.Fatal(err)
	}
	tasks, _ := s.Tasks(envbridge.SplitValidUnseen)
	seen := map[string]bool{}
	ctx := context.Background()
	for _, task := range tasks {
		if seen[task.Type] {
			continue
		}
		seen[task.Type] = true
		env := s.NewEnv()
		obs, err := env.Reset(ctx, task)
		if err != nil {
			t.Fatal(err)
		}
		if env.Progress() != 0 {
			t.Errorf("%s: progress %v at the start", task.ID, env.Progress())
		}
		if env.Accepts("dance with the fridge") {
			t.Errorf("%s: an unknown action is accepted", task.ID)
		}
		if a := obs.Admissible[0]; !env.Accepts(strings.ToUpper(a)) {
			t.Errorf("%s: %q in capitals is not accepted", task.ID, a)
		}
		plan, err := s.Expert(task.ID)
		if err != nil {
			t.Fatal(err)
		}
		levels := map[float64]bool{}
		prev := 0.0
		var res envbridge.StepResult
		for _, a := range plan {
			if res, err = env.Step(ctx, a); err != nil {
				t.Fatal(err)
			}
			p := env.Progress()
			if p < prev {
				t.Errorf("%s: progress fell from %v to %v at %q", task.ID, prev, p, a)
			}
			prev = p
			levels[p] = true
		}
		if !res.Won || prev != 1 {
			t.Errorf("%s: won %v, progress %v at the end", task.ID, res.Won, prev)
		}
		want := map[string]int{hhtext.PickAndPlace: 3, hhtext.LookInLight: 3, hhtext.PickTwo: 4}[task.Type]
		if want == 0 {
			want = 4 // clean, heat, cool: find, take, process, place
		}
		if len(levels) < want { // every level 1/n .. n/n passed (0 may be skipped)
			t.Errorf("%s (%s): progress went through %v, want the %d levels of its subgoals", task.ID, task.Type, levels, want)
		}
		if env.Accepts(plan[0]) {
			t.Errorf("%s: an action is accepted after the episode ended", task.ID)
		}
	}
	if len(seen) != 6 {
		t.Errorf("saw %d task types, want 6", len(seen))
	}
}

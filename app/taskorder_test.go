package app

import (
	"errors"
	"slices"
	"testing"

	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household"
)

// TestTrainingTaskOrder: the shuffled order is a permutation of the picked
// tasks, the same for a run seed and another for another seed, and it
// interleaves task types where the suite lists them in blocks; the suite
// order keeps the suite's.
func TestTrainingTaskOrder(t *testing.T) {
	suite, err := household.New(household.Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	all, err := suite.Tasks(envbridge.SplitTrain)
	if err != nil {
		t.Fatal(err)
	}
	ids := func(ts []envbridge.Task) []string {
		out := make([]string, len(ts))
		for i, x := range ts {
			out[i] = x.ID
		}
		return out
	}
	for _, perType := range []int{1, 5, 0} {
		inSuite := TrainingTasks(suite, all, perType, 7, TaskOrderSuite)
		if !slices.Equal(ids(TrainingTasks(suite, all, perType, 7, "")), ids(inSuite)) {
			t.Errorf("per-type %d: an empty order is not the suite's order", perType)
		}
		a := TrainingTasks(suite, all, perType, 7, TaskOrderShuffled)
		b := TrainingTasks(suite, all, perType, 7, TaskOrderShuffled)
		c := TrainingTasks(suite, all, perType, 8, TaskOrderShuffled)
		if !slices.Equal(ids(a), ids(b)) {
			t.Errorf("per-type %d: two shuffles with one seed differ", perType)
		}
		if slices.Equal(ids(a), ids(inSuite)) || slices.Equal(ids(a), ids(c)) {
			t.Errorf("per-type %d: the shuffled order equals the suite's or another seed's", perType)
		}
		sa, ss := slices.Sorted(slices.Values(ids(a))), slices.Sorted(slices.Values(ids(inSuite)))
		if !slices.Equal(sa, ss) {
			t.Errorf("per-type %d: the shuffled tasks are not the picked tasks", perType)
		}
		if perType == 0 {
			// The suite lists its 600 tasks in six blocks of one type; a
			// shuffled order changes type far more often.
			changes := func(ts []envbridge.Task) int {
				n := 0
				for i := 1; i < len(ts); i++ {
					if ts[i].Type != ts[i-1].Type {
						n++
					}
				}
				return n
			}
			if cs, ca := changes(inSuite), changes(a); cs > 5 || ca < 300 {
				t.Errorf("type changes along the order: suite %d (want <= 5), shuffled %d (want >= 300)", cs, ca)
			}
		}
	}
}

func TestTaskOrderValidated(t *testing.T) {
	cfg := Defaults()
	cfg.TaskOrder = "alphabetical"
	if err := cfg.Validate(); !errors.Is(err, ErrConfig) {
		t.Errorf("task order %q: err = %v, want ErrConfig", cfg.TaskOrder, err)
	}
	cfg.TaskOrder = TaskOrderSuite
	if err := cfg.Validate(); err != nil {
		t.Errorf("task order %q: %v", cfg.TaskOrder, err)
	}
}

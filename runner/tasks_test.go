package runner

import (
	"fmt"
	"slices"
	"testing"

	"github.com/samem/trainer/envbridge"
)

func TestSamplePerType(t *testing.T) {
	var tasks []envbridge.Task
	for i := range 30 {
		tasks = append(tasks, envbridge.Task{ID: fmt.Sprint(i), Type: []string{"boil", "melt", "find-plant"}[i/10]})
	}
	ids := func(ts []envbridge.Task) []string {
		var out []string
		for _, t := range ts {
			out = append(out, t.ID)
		}
		return out
	}
	a := SamplePerType(tasks, 3, 1)
	count := map[string]int{}
	for _, t := range a {
		count[t.Type]++
	}
	if len(a) != 9 || count["boil"] != 3 || count["melt"] != 3 || count["find-plant"] != 3 {
		t.Fatalf("SamplePerType(3) = %v, want 3 of each of the 3 types", ids(a))
	}
	if !slices.IsSortedFunc(a, func(x, y envbridge.Task) int { return slices.Index(tasks, x) - slices.Index(tasks, y) }) {
		t.Errorf("not in the suite's order: %v", ids(a))
	}
	if b := SamplePerType(tasks, 3, 1); !slices.Equal(ids(a), ids(b)) {
		t.Errorf("same seed, other tasks: %v vs %v", ids(a), ids(b))
	}
	if first := PerType(tasks, 3); slices.Equal(ids(a), ids(first)) {
		t.Errorf("seed 1 picked exactly the first three of each type: %v (not a random pick)", ids(a))
	}
	differ := false
	for seed := int64(2); seed < 6 && !differ; seed++ {
		differ = !slices.Equal(ids(a), ids(SamplePerType(tasks, 3, seed)))
	}
	if !differ {
		t.Errorf("seeds 1-5 all picked %v", ids(a))
	}
	if got := SamplePerType(tasks, 0, 1); len(got) != 30 {
		t.Errorf("n=0 kept %d tasks, want all 30", len(got))
	}
	if got := SamplePerType(tasks, 50, 1); len(got) != 30 {
		t.Errorf("n=50 kept %d tasks, want all 30", len(got))
	}
}

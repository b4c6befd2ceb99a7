package clin

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/envbridge"
)

// expertTrace plays plan on the fake world and records it as CLIN sees it.
func expertTrace(t *testing.T, task envbridge.Task, plan []string) ([]Step, bool) {
	t.Helper()
	w := &fakeWorld{}
	if _, err := w.Reset(context.Background(), task); err != nil {
		t.Fatal(err)
	}
	var trace []Step
	won := false
	for _, a := range plan {
		res, err := w.Step(context.Background(), a)
		if err != nil {
			t.Fatal(err)
		}
		trace = append(trace, Step{Action: a, Observation: res.Text, Reward: res.Reward})
		won = res.Won
	}
	return trace, won
}

func TestExtractSuccess(t *testing.T) {
	trace, won := expertTrace(t, heatApple, heatApplePlan)
	if !won {
		t.Fatal("expert plan did not win")
	}
	got, reached := Extract(heatApple.Goal, trace, won)
	want := []string{
		"opening a closed receptacle is NECESSARY to finding the target object.",
		"going to the microwave is NECESSARY to heating the target object with the microwave.",
		"taking the target object is NECESSARY to heating the target object with the microwave.",
		"heating the target object with the microwave is NECESSARY to putting the target object in the target receptacle.",
		"putting the target object in the target receptacle is NECESSARY to completing the task.",
		"going to the target receptacle is NECESSARY to putting the target object in the target receptacle.",
	}
	var texts []string
	for _, a := range got {
		texts = append(texts, a.String())
	}
	for _, w := range want {
		if !slices.Contains(texts, w) {
			t.Errorf("Extract misses %q; got\n%v", w, texts)
		}
	}
	wantReached := []string{"taking the target object", "heating the target object with the microwave", "putting the target object in the target receptacle"}
	if !reflect.DeepEqual(reached, wantReached) {
		t.Errorf("reached = %v, want %v", reached, wantReached)
	}
	for _, a := range got {
		if a.Kind == NotContribute {
			t.Errorf("a won trial gave %q", a)
		}
	}
}

func TestExtractFailure(t *testing.T) {
	plan := []string{"inventory", "inventory", "look", "go to shelf 1", "take vase 1 from shelf 1", "inventory"}
	trace, won := expertTrace(t, heatApple, plan)
	got, _ := Extract(heatApple.Goal, trace, won)
	want := []Abstraction{{Kind: NotContribute, X: "checking the inventory", Y: "completing the task"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Extract = %v, want %v", got, want)
	}
}

func TestMergeAdaptModifiers(t *testing.T) {
	a := Abstraction{Kind: Necessary, X: "taking the target object", Y: "completing the task"}
	old := Abstraction{Kind: NotContribute, X: "looking around", Y: "completing the task", Modifier: ModMay, Trial: 0}
	prev := []Memory{{Trial: 0, Items: []Abstraction{old, {Kind: Necessary, Modifier: ModMay, X: a.X, Y: a.Y}}}}
	got := mergeAdapt([]Abstraction{a}, prev, 1, 0, nil)
	if len(got) != 2 || got[0].Modifier != ModShould || got[0].Trial != 1 || got[1] != old {
		t.Errorf("merge at trial 1 = %+v", got)
	}
	// Not re-confirmed for three trials: the DOES NOT CONTRIBUTE item goes.
	if got := mergeAdapt(nil, prev, 3, 0, nil); len(got) != 1 || got[0].Kind != Necessary {
		t.Errorf("merge at trial 3 = %+v, want only the NECESSARY item", got)
	}
}

// train plays trials of each task with one shared method.
func train(t *testing.T, m *Method, tasks []envbridge.Task, trials int) {
	for k := range trials {
		for _, task := range tasks {
			play(t, m, task, agent.Train, k, 99)
		}
	}
}

func TestSaveLoadEqual(t *testing.T) {
	m := newOffline(t)
	train(t, m, []envbridge.Task{heatApple, heatMug, cleanPlate}, 3)
	// heatEgg has begun its first trial (an empty memory, ADAPT) and has no adapted memory yet.
	play(t, m, heatEgg, agent.Train, 0, 5)
	dir := t.TempDir()
	if err := m.Save(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	back := newOffline(t)
	if err := back.Load(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.tasks, m.tasks) {
		t.Errorf("loaded memory differs from saved:\n%+v\n%+v", back.tasks, m.tasks)
	}
	if got, want := back.Size(), m.Size(); !reflect.DeepEqual(got, want) || got["abstractions"] == 0 {
		t.Errorf("Size after load = %v, want %v (non-zero)", got, want)
	}
}

func TestLoadBad(t *testing.T) {
	m := newOffline(t)
	train(t, m, []envbridge.Task{heatApple}, 1)
	dir := t.TempDir()
	if err := m.Save(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	items, err := checkpoints.ReadFile[ItemRow](ctx, filepath.Join(dir, ItemsFile))
	if err != nil || len(items) == 0 {
		t.Fatalf("read items: %v, %d rows", err, len(items))
	}
	tests := []struct {
		name   string
		break_ func(t *testing.T)
		want   error
	}{
		{"missing items", func(t *testing.T) { os.Remove(filepath.Join(dir, ItemsFile)) }, checkpoints.ErrMissing},
		{"extra item", func(t *testing.T) {
			extra := append(items, ItemRow{TaskID: "nope", Kind: string(Necessary)})
			if err := checkpoints.WriteFile(ctx, filepath.Join(dir, ItemsFile), extra, checkpoints.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
		}, ErrFormat},
		{"bad kind", func(t *testing.T) {
			bad := slices.Clone(items)
			bad[0].Kind = "SOMETIMES"
			if err := checkpoints.WriteFile(ctx, filepath.Join(dir, ItemsFile), bad, checkpoints.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
		}, ErrFormat},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fresh := newOffline(t)
			train(t, fresh, []envbridge.Task{twoCD}, 1)
			before := fresh.Memory(twoCD.ID)
			tt.break_(t)
			if err := fresh.Load(ctx, dir); !errors.Is(err, tt.want) {
				t.Errorf("Load = %v, want %v", err, tt.want)
			}
			if got := fresh.Memory(twoCD.ID); !reflect.DeepEqual(got, before) {
				t.Errorf("a failed Load changed the memory")
			}
		})
	}
}

// TestGeneralization: memory built on other tasks of a type helps a new task
// of that type at its first, frozen trial (Eq. 3, GEN-ENV).
func TestGeneralization(t *testing.T) {
	trained := newOffline(t)
	train(t, trained, []envbridge.Task{heatApple, heatMug}, 5)
	base := newOffline(t)
	var withMeta, without int
	const runs = 40
	for s := range runs {
		if play(t, trained, heatEgg, agent.Eval, 0, uint64(s)).Outcome.Won {
			withMeta++
		}
		if play(t, base, heatEgg, agent.Eval, 0, uint64(s)).Outcome.Won {
			without++
		}
	}
	t.Logf("heat-egg success: %d/%d with meta-memory, %d/%d without", withMeta, runs, without, runs)
	if withMeta < without+runs/5 {
		t.Errorf("meta-memory success %d/%d not clearly above base %d/%d", withMeta, runs, without, runs)
	}
	if trained.Memory(heatEgg.ID) != nil {
		t.Errorf("an Eval episode stored memory")
	}
}

func TestNewNeedsEmbedder(t *testing.T) {
	if _, err := New(Config{}, Deps{}); !errors.Is(err, ErrNoEmbedder) {
		t.Errorf("New without embedder = %v, want ErrNoEmbedder", err)
	}
}

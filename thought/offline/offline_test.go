package offline

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/samem/trainer/envbridge"
	llmoffline "github.com/samem/trainer/llm/offline"
	"github.com/samem/trainer/thought"
)

// TestStrategiesSeparate checks that no two library thoughts share a thought
// cluster at the default threshold (with a margin) under the offline
// embedder: a merged pair would make guidance follow the wrong strategy.
func TestStrategiesSeparate(t *testing.T) {
	const limit = 0.80
	for name, lib := range map[string][]string{"household": householdThoughts, "fiction": fictionStrategies} {
		vecs, err := llmoffline.New(llmoffline.DefaultDim).Embed(context.Background(), lib)
		if err != nil {
			t.Fatal(err)
		}
		for i := range lib {
			for j := i + 1; j < len(lib); j++ {
				var cos float32
				for k := range vecs[i] {
					cos += vecs[i][k] * vecs[j][k]
				}
				if cos >= limit {
					t.Errorf("%s thoughts %d and %d have cosine %.3f >= %.2f:\n  %s\n  %s", name, i, j, cos, limit, lib[i], lib[j])
				}
			}
		}
	}
}

func TestOfflineGuidedFollowsGuide(t *testing.T) {
	task := envbridge.Task{Goal: "put a clean egg in microwave."}
	s := Thinker{}.Begin(task, envbridge.StyleHousehold, rand.New(rand.NewPCG(1, 2)))
	ctx := context.Background()
	first := "You are in the middle of a room. Looking quickly around you, you see a countertop 1, a microwave 1, and a sinkbasin 1.\n\nYour task is to: put a clean egg in microwave."
	adm := []string{"go to countertop 1", "go to microwave 1", "go to sinkbasin 1", "inventory", "look"}
	d, err := s.Think(ctx, thought.Input{Obs: envbridge.Observation{Text: first, Admissible: adm}, Guide: Search})
	if err != nil || d.Action != "go to countertop 1" || d.Thought != Search {
		t.Fatalf("Think(search) = %+v, %v", d, err)
	}
	adm2 := []string{"go to microwave 1", "go to sinkbasin 1", "take egg 1 from countertop 1", "inventory", "look"}
	d, _ = s.Think(ctx, thought.Input{Obs: envbridge.Observation{Text: "You arrive at countertop 1. On the countertop 1, you see a egg 1.", Admissible: adm2}, Guide: TakeHere})
	if d.Action != "take egg 1 from countertop 1" {
		t.Fatalf("Think(take) = %+v", d)
	}
	adm3 := []string{"go to countertop 1", "go to microwave 1", "go to sinkbasin 1", "inventory", "look"}
	d, _ = s.Think(ctx, thought.Input{Obs: envbridge.Observation{Text: "You pick up the egg 1 from the countertop 1.", Admissible: adm3}, Guide: ToAppliance})
	if d.Action != "go to sinkbasin 1" {
		t.Fatalf("Think(to appliance) = %+v", d)
	}
	// A guide that does not apply here (nothing to open) is not followed.
	d, _ = s.Think(ctx, thought.Input{Obs: envbridge.Observation{Text: "You arrive at sinkbasin 1. On the sinkbasin 1, you see nothing.", Admissible: []string{"go to countertop 1", "clean egg 1 with sinkbasin 1", "look"}}, Guide: OpenHere})
	if d.Thought == OpenHere {
		t.Fatalf("Think followed a guide that does not apply: %+v", d)
	}
}

func TestOfflineExploresAmongApplicable(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	seen := map[string]bool{}
	for i := 0; i < 200; i++ {
		s := Thinker{}.Begin(envbridge.Task{Goal: "put some apple on countertop."}, envbridge.StyleHousehold, rng)
		d, _ := s.Think(context.Background(), thought.Input{Obs: envbridge.Observation{
			Text:       "You are in the middle of a room. Looking quickly around you, you see a countertop 1, and a fridge 1.",
			Admissible: []string{"go to countertop 1", "go to fridge 1", "inventory", "look"}}})
		seen[d.Thought] = true
		if d.Thought == OpenHere || d.Thought == TakeHere || d.Thought == UseLamp {
			t.Fatalf("explored a strategy that does not apply: %+v", d)
		}
	}
	if len(seen) < 4 {
		t.Errorf("exploration used only %d strategies: %v", len(seen), seen)
	}
}

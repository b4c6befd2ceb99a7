package kgplan_test

import (
	"testing"

	"github.com/samem/trainer/internal/golden"
	"github.com/samem/trainer/kgplan"
	kgoff "github.com/samem/trainer/kgplan/offline"
)

func promptGraph(t *testing.T) *kgplan.Graph {
	g := newGraphExt(t)
	u, _ := kgoff.Text{}.Read(g, "You are in the middle of a room. Looking quickly around you, you see a cabinet 1, a countertop 1, and a microwave 1.")
	if err := g.Apply(u, -1, "reader"); err != nil {
		t.Fatal(err)
	}
	u, _ = kgoff.Text{}.Read(g, "You arrive at countertop 1. On the countertop 1, you see a egg 1.")
	if err := g.Apply(u, 0, "reader"); err != nil {
		t.Fatal(err)
	}
	return g
}

func TestPromptsGolden(t *testing.T) {
	g := promptGraph(t)
	up, err := kgplan.UpdatePrompt(g, g.Retrieve([]string{"you", "egg 1"}, 2), "take egg 1 from countertop 1",
		"You pick up the egg 1 from the countertop 1.", []string{`add "egg 1 -> on -> you": unknown predicate "on"`})
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "update_prompt.golden", []byte(up))
	gp, err := kgplan.GoalPrompt(g, "heat some egg and put it in cabinet.", "no plan exists: search space exhausted")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "goal_prompt.golden", []byte(gp))
	ep, err := kgplan.EntitiesPrompt(g, "heat some egg and put it in cabinet.")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "entities_prompt.golden", []byte(ep))
}

func newGraphExt(t testing.TB) *kgplan.Graph {
	t.Helper()
	d, err := kgplan.Household()
	if err != nil {
		t.Fatal(err)
	}
	return kgplan.NewGraph(d)
}

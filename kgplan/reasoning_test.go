package kgplan

import (
	"slices"
	"testing"

	"github.com/samem/trainer/internal/golden"
	replyfmt "github.com/samem/trainer/internal/reply"
	"github.com/samem/trainer/llm"
)

func TestSchemasGolden(t *testing.T) {
	for _, s := range []*llm.Schema{UpdateSchema, GoalSchema, EntitiesSchema} {
		golden.Schema(t, s)
	}
}

// TestAnswersWithoutReasoning: updates, goals and entities are never read
// from reasoning, and their JSON answers need no repair.
func TestAnswersWithoutReasoning(t *testing.T) {
	u, err := ParseUpdate(`<think>{"REMOVE": [], "ADD": ["you -> at -> poison 1"]}</think>{"REMOVE": [], "ADD": ["you -> at -> cabinet 1"]}`)
	if err != nil || len(u.Add) != 1 || u.Add[0].Object != "cabinet 1" {
		t.Errorf("ParseUpdate = %+v, %v", u, err)
	}
	c, repaired, err := ParseGoalAnswer(replyfmt.Answer{Text: `{"goal": "(:goal (in apple_1 fridge_1))"}`, Structured: true})
	if err != nil || repaired || c.String() != "(and (in apple_1 fridge_1))" {
		t.Errorf("structured goal = %s, %v, %v", c, repaired, err)
	}
	if _, err := ParseGoal("(:goal (in poison_1 fridge_1))\n</think>\nI cannot say."); err == nil {
		t.Error("a goal of the reasoning was read")
	}
	known := []string{"you", "fridge 1", "apple 1"}
	ents, repaired := ParseEntitiesAnswer(replyfmt.Answer{Text: `{"entities": ["fridge 1", "nothing 9"]}`, Structured: true}, known)
	if repaired || !slices.Equal(ents, []string{"fridge 1"}) {
		t.Errorf("structured entities = %v, %v", ents, repaired)
	}
	if ents := ParseEntities(`["apple 1"]</think>["fridge 1"]`, known); !slices.Equal(ents, []string{"fridge 1"}) {
		t.Errorf("entities = %v", ents)
	}
}

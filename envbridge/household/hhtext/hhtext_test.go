package hhtext

import (
	"reflect"
	"testing"
)

func TestParseGoal(t *testing.T) {
	tests := []struct {
		in   string
		want Goal
		ok   bool
	}{
		{"put a apple in fridge.", Goal{PickAndPlace, "apple", "fridge", "", 1}, true},
		{"Your task is to: put some spraybottle on toilet.", Goal{PickAndPlace, "spraybottle", "toilet", "", 1}, true},
		{"look at bowl under the desklamp.", Goal{LookInLight, "bowl", "", "desklamp", 1}, true},
		{"examine the alarmclock with the floorlamp", Goal{LookInLight, "alarmclock", "", "floorlamp", 1}, true},
		{"put a clean mug in coffeemachine.", Goal{PickClean, "mug", "coffeemachine", "", 1}, true},
		{"clean some lettuce and put it in diningtable.", Goal{PickClean, "lettuce", "diningtable", "", 1}, true},
		{"put a hot egg in countertop.", Goal{PickHeat, "egg", "countertop", "", 1}, true},
		{"heat some potato and put it in garbagecan.", Goal{PickHeat, "potato", "garbagecan", "", 1}, true},
		{"put a cool tomato in microwave.", Goal{PickCool, "tomato", "microwave", "", 1}, true},
		{"cool some pan and put it in stoveburner.", Goal{PickCool, "pan", "stoveburner", "", 1}, true},
		{"put two cellphone in sofa.", Goal{PickTwo, "cellphone", "sofa", "", 2}, true},
		{"find two book and put them in shelf.", Goal{PickTwo, "book", "shelf", "", 2}, true},
		{"  PUT  A  Clean cloth in   bathtubbasin . ", Goal{PickClean, "cloth", "bathtubbasin", "", 1}, true},
		{"You are in the middle of a room. Looking quickly around you, you see a cabinet 1.\n\nYour task is to: put a apple in fridge.", Goal{PickAndPlace, "apple", "fridge", "", 1}, true},
		{"put a apple in", Goal{}, false},
		{"go to fridge 1", Goal{}, false},
		{"", Goal{}, false},
	}
	for _, tc := range tests {
		got, ok := ParseGoal(tc.in)
		if ok != tc.ok || got != tc.want {
			t.Errorf("ParseGoal(%q) = %+v, %v, want %+v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParseObservation(t *testing.T) {
	tests := []struct {
		in   string
		want Event
	}{
		{"You are in the middle of a room. Looking quickly around you, you see a cabinet 2, a cabinet 1, and a toaster 1.\n\nYour task is to: put a apple in fridge.",
			Event{Kind: Start, Items: []string{"cabinet 2", "cabinet 1", "toaster 1"}, Task: "put a apple in fridge."}},
		{"You arrive at countertop 1. On the countertop 1, you see a apple 1, and a bread 2.",
			Event{Kind: Arrive, Target: "countertop 1", Items: []string{"apple 1", "bread 2"}}},
		{"You arrive at countertop 2. On the countertop 2, you see nothing.",
			Event{Kind: Arrive, Target: "countertop 2", Items: []string{}}},
		{"You arrive at cabinet 3. The cabinet 3 is closed.",
			Event{Kind: Arrive, Target: "cabinet 3", Closed: true}},
		{"You arrive at drawer 1. The drawer 1 is open. In it, you see a keychain 1.",
			Event{Kind: Arrive, Target: "drawer 1", Opened: true, Items: []string{"keychain 1"}}},
		{"You open the fridge 1. The fridge 1 is open. In it, you see nothing.",
			Event{Kind: Open, Target: "fridge 1", Opened: true, Items: []string{}}},
		{"You open the fridge 1. The fridge 1 is open. In it, you see a egg 1, a lettuce 2, and a tomato 1.",
			Event{Kind: Open, Target: "fridge 1", Opened: true, Items: []string{"egg 1", "lettuce 2", "tomato 1"}}},
		{"You close the fridge 1.", Event{Kind: Close, Target: "fridge 1"}},
		{"You pick up the apple 1 from the countertop 1.", Event{Kind: Take, Object: "apple 1", Target: "countertop 1"}},
		{"You put the apple 1 in/on the fridge 1.", Event{Kind: Put, Object: "apple 1", Target: "fridge 1"}},
		{"You move the apple 1 to the fridge 1.", Event{Kind: Put, Object: "apple 1", Target: "fridge 1"}},
		{"You clean the mug 2 using the sinkbasin 1.", Event{Kind: Clean, Object: "mug 2", Target: "sinkbasin 1"}},
		{"You heat the egg 1 using the microwave 1.", Event{Kind: Heat, Object: "egg 1", Target: "microwave 1"}},
		{"You cool the pan 1 using the fridge 1.", Event{Kind: Cool, Object: "pan 1", Target: "fridge 1"}},
		{"You turn on the desklamp 1.", Event{Kind: TurnOn, Target: "desklamp 1"}},
		{"You are carrying: a book 3.", Event{Kind: Inventory, Items: []string{"book 3"}}},
		{"You are not carrying anything.", Event{Kind: Inventory, Items: []string{}}},
		{"Nothing happens.", Event{Kind: Nothing}},
		{"You are facing the sofa 1. Next to it, you see nothing.", Event{Kind: Look, Target: "sofa 1"}},
		{"There's nothing special about book 3.", Event{Kind: Examine, Object: "book 3"}},
		{"On the desk 1, you see a desklamp 1.", Event{Kind: Examine, Target: "desk 1", Items: []string{"desklamp 1"}}},
		{"The safe 1 is closed.", Event{Kind: Examine, Target: "safe 1", Closed: true}},
		{"You fly away.", Event{}},
		{"", Event{}},
	}
	for _, tc := range tests {
		got := ParseObservation(tc.in)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseObservation(%q) =\n %+v, want\n %+v", tc.in, got, tc.want)
		}
	}
}

func TestSplitName(t *testing.T) {
	tests := []struct {
		in   string
		kind string
		n    int
		ok   bool
	}{
		{"apple 1", "apple", 1, true},
		{"countertop 12", "countertop", 12, true},
		{"apple", "", 0, false},
		{"apple 0", "", 0, false},
		{"apple -1", "", 0, false},
		{"apple +1", "", 0, false},
		{"apple x", "", 0, false},
		{" 1", "", 0, false},
		{"", "", 0, false},
	}
	for _, tc := range tests {
		kind, n, ok := SplitName(tc.in)
		if kind != tc.kind || n != tc.n || ok != tc.ok {
			t.Errorf("SplitName(%q) = %q, %d, %v, want %q, %d, %v", tc.in, kind, n, ok, tc.kind, tc.n, tc.ok)
		}
	}
}

func TestKindString(t *testing.T) {
	if got := Arrive.String(); got != "arrive" {
		t.Errorf("Arrive.String() = %q, want arrive", got)
	}
	if got := Kind(99).String(); got != "kind(99)" {
		t.Errorf("Kind(99).String() = %q", got)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"You arrive at countertop 1. On the countertop 1, you see a apple 1, and a bread 2.",
		"You open the fridge 1. The fridge 1 is open. In it, you see nothing.",
		"You are in the middle of a room. Looking quickly around you, you see a cabinet 1.\n\nYour task is to: put two book in shelf.",
		"You put the apple 1 in/on the fridge 1.", "You heat the egg 1 using the microwave 1.",
		"The ", "On the ", "You arrive at ", "apple 1", "examine the x with the y.",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ev := ParseObservation(s)
		_ = ev.Kind.String()
		g, ok := ParseGoal(s)
		if ok && (g.Object == "" || (g.Receptacle == "" && g.Lamp == "")) {
			t.Errorf("ParseGoal(%q) = %+v with empty parts", s, g)
		}
		_ = ParseList(s)
		if k, n, ok := SplitName(s); ok && (k == "" || n <= 0) {
			t.Errorf("SplitName(%q) = %q, %d, true", s, k, n)
		}
	})
}

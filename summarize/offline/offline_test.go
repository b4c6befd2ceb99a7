package offline

import (
	"context"
	"fmt"
	"testing"

	"github.com/samem/trainer/envbridge"
	llmoffline "github.com/samem/trainer/llm/offline"
)

// situations are one example state of each household situation.
func situations() map[string]string {
	m := map[string]string{
		"search": Searching, "closed": FacingClosed, "here": TargetHere, "seen": TargetSeen,
		"other": CarryOther, "ready": ReadyToPlace, "dest": AtDestination, "dest-first": FirstOfMore, "dest-closed": DestClosed, "examine": MustExamine, "lamp": AtLamp,
	}
	for _, p := range []string{"cleaning", "heating", "cooling"} {
		m["to-appliance-"+p] = NeedsPrefix + p + " at an appliance somewhere else."
		m["at-appliance-"+p] = AtAppliance + p + ", with the target object carried."
	}
	return m
}

// TestSituationsSeparate checks that situations calling for different
// strategies do not fall into one cluster at the default threshold with the
// offline embedder, while the cleaning / heating / cooling variants of one
// situation may.
func TestSituationsSeparate(t *testing.T) {
	const threshold = 0.80 // a margin below the 0.85 default
	sit := situations()
	var names, texts []string
	for n, s := range sit {
		names, texts = append(names, n), append(texts, s)
	}
	vecs, err := llmoffline.New(llmoffline.DefaultDim).Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	group := func(n string) string {
		if len(n) > 12 && (n[:13] == "to-appliance-" || n[:13] == "at-appliance-") {
			return n[:13]
		}
		return n
	}
	for i := range names {
		for j := i + 1; j < len(names); j++ {
			var cos float32
			for k := range vecs[i] {
				cos += vecs[i][k] * vecs[j][k]
			}
			if group(names[i]) != group(names[j]) && cos >= threshold {
				t.Errorf("situations %s and %s have cosine %.3f >= %.2f:\n  %s\n  %s", names[i], names[j], cos, threshold, texts[i], texts[j])
			}
		}
	}
}

// TestHouseholdStates follows an episode's text through the offline summariser.
func TestHouseholdStates(t *testing.T) {
	s := Summarizer{}.Begin(envbridge.Task{Goal: "put a hot apple in fridge."}, envbridge.StyleHousehold)
	steps := []struct{ action, obs, want string }{
		{"", "You are in the middle of a room. Looking quickly around you, you see a cabinet 1, a countertop 1, a fridge 1, and a microwave 1.\n\nYour task is to: put a hot apple in fridge.", Searching},
		{"go to cabinet 1", "You arrive at cabinet 1. The cabinet 1 is closed.", FacingClosed},
		{"open cabinet 1", "You open the cabinet 1. The cabinet 1 is open. In it, you see a mug 1.", Searching},
		{"go to countertop 1", "You arrive at countertop 1. On the countertop 1, you see a apple 1, and a knife 1.", TargetHere},
		{"take apple 1 from countertop 1", "You pick up the apple 1 from the countertop 1.", NeedsPrefix + "heating at an appliance somewhere else."},
		{"go to microwave 1", "You arrive at microwave 1. The microwave 1 is closed.", AtAppliance + "heating, with the target object carried."},
		{"heat apple 1 with microwave 1", "You heat the apple 1 using the microwave 1.", ReadyToPlace},
		{"go to fridge 1", "You arrive at fridge 1. The fridge 1 is closed.", DestClosed},
		{"open fridge 1", "You open the fridge 1. The fridge 1 is open. In it, you see a lettuce 1.", AtDestination},
	}
	for i, st := range steps {
		got, err := s.Summarize(context.Background(), st.action, envbridge.Observation{Text: st.obs})
		if err != nil || got != st.want {
			t.Errorf("step %d (%s): state = %q, %v; want %q", i, st.action, got, err, st.want)
		}
	}
}

func ExampleSummarizer() {
	s := Summarizer{}.Begin(envbridge.Task{Goal: "put some soapbar on toilet."}, envbridge.StyleHousehold)
	ctx := context.Background()
	s.Summarize(ctx, "", envbridge.Observation{Text: "You are in the middle of a room. Looking quickly around you, you see a toilet 1, and a countertop 1."})
	state, _ := s.Summarize(ctx, "go to countertop 1", envbridge.Observation{Text: "You arrive at countertop 1. On the countertop 1, you see a soapbar 2."})
	fmt.Println(state)
	// Output: The target object lies right here, within reach.
}

func TestFictionSummary(t *testing.T) {
	s := Summarizer{}.Begin(envbridge.Task{}, envbridge.StyleFiction)
	got, err := s.Summarize(context.Background(), "north", envbridge.Observation{Text: "[Your score has just gone up by one point.]\nKitchen\nYou are in a kitchen. A door leads north. There is a key here. It glints."})
	want := "Kitchen You are in a kitchen. A door leads north. There is a key here."
	if err != nil || got != want {
		t.Errorf("fiction summary = %q, %v; want %q", got, err, want)
	}
}

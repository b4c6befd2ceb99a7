package baseline

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/internal/golden"
	replyfmt "github.com/samem/trainer/internal/reply"
)

var (
	goal    = "put a hot apple in fridge."
	adm     = []string{"go to countertop 1", "go to microwave 1", "inventory", "look", "take apple 1 from countertop 1"}
	history = []Step{
		{Text: "You are in the middle of a room. Looking quickly around you, you see a countertop 1, a fridge 1, and a microwave 1.\n\nYour task is to: put a hot apple in fridge."},
		{Action: "go to fridge 1", Text: "You arrive at fridge 1. The fridge 1 is closed."},
		{Action: "open fridge 1", Text: "You open the fridge 1. The fridge 1 is open. In it, you see nothing."},
	}
	current = Step{Action: "go to countertop 1", Text: "You arrive at countertop 1. On the countertop 1, you see a apple 1."}
)

func TestActorPromptsGolden(t *testing.T) {
	for _, tc := range []struct {
		name  string
		style envbridge.Style
		view  actorView
	}{
		{"fullhistory-household", envbridge.StyleHousehold, actorView{Goal: goal, History: history, Current: current, Admissible: adm}},
		{"fullhistory-omitted", envbridge.StyleHousehold, actorView{Goal: goal, History: history[:1], Omitted: 2, Current: current, Admissible: append([]string{"move apple 1 to fridge 1"}, adm...)}},
		{"reflexion-household", envbridge.StyleHousehold, actorView{Goal: goal, Reflections: []string{"The target object was never found: go through the receptacles not checked yet, opening the closed ones, before anything else.", "I kept checking the inventory. Next time go straight to the microwave."}, History: history, Current: current, Admissible: adm}},
		{"summary-science", envbridge.StyleScience, actorView{Goal: "boil water.", Summary: "You are in the kitchen. The pot is on the stove.", Current: Step{Action: "activate stove", Text: "The stove is now activated."}, Admissible: []string{"look around", "wait1"}}},
		{"fullhistory-fiction", envbridge.StyleFiction, actorView{Goal: "Find the treasure.", History: []Step{{Text: "West of House. There is a small mailbox here."}}, Current: Step{Action: "open mailbox", Text: "Opening the small mailbox reveals a leaflet."}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msgs, err := actorMessages(tc.style, tc.view)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, "actor-"+tc.name+".golden", golden.Messages(msgs))
		})
	}
}

func TestSummaryPromptsGolden(t *testing.T) {
	for _, tc := range []struct{ name, summary, action, text string }{
		{"start", "", "", history[0].Text},
		{"later", "You are at the fridge; it is empty. The apple has not been found.", current.Action, current.Text},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msgs, err := summaryMessages(goal, tc.summary, tc.action, tc.text)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, "summary-"+tc.name+".golden", golden.Messages(msgs))
		})
	}
}

func TestReflectPromptGolden(t *testing.T) {
	msgs, err := reflectMessages(goal, "failed: the step limit was reached after 50 steps without completing the task.", append(history, current), 0)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "reflect.golden", golden.Messages(msgs))
}

func TestParseReflection(t *testing.T) {
	long := strings.Repeat("word ", 200)
	for _, tc := range []struct{ in, want string }{
		{"Reflection: I looked around too often.", "I looked around too often."},
		{"**Reflection:**\n  I never opened\n the fridge.  ", "I never opened the fridge."},
		{"```\nreflection: \"Search first.\"\n```", "Search first."},
		{"Plain text without a label.", "Plain text without a label."},
		{"Thinking about it... Reflection: late label", "late label"},
		{"A long preamble that goes on and on for many words, then Reflection: x", "A long preamble that goes on and on for many words, then Reflection: x"},
		{long, strings.TrimSpace(long[:maxReflectionLen])},
	} {
		got, err := ParseReflection(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseReflection(%q) = %q, %v; want %q", replyfmt.Short(tc.in, 60), got, err, replyfmt.Short(tc.want, 60))
		}
	}
	for _, in := range []string{"", "  \n", "Reflection:", "**Reflection:** ``` ```", `""`} {
		if got, err := ParseReflection(in); !errors.Is(err, ErrEmptyReflection) {
			t.Errorf("ParseReflection(%q) = %q, %v; want ErrEmptyReflection", in, got, err)
		}
	}
}

func FuzzParseReflection(f *testing.F) {
	for _, s := range []string{"Reflection: a", "reflection:", "**", "```", "", "\xff\xfe", strings.Repeat("é", 400)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseReflection(s)
		if err != nil {
			if !errors.Is(err, ErrEmptyReflection) || got != "" {
				t.Fatalf("ParseReflection(%q) = %q, %v", s, got, err)
			}
			return
		}
		if got == "" || len(got) > maxReflectionLen || strings.ContainsAny(got, "\n\t") || !utf8.ValidString(got) || got != strings.TrimSpace(got) {
			t.Fatalf("ParseReflection(%q) = %q: empty, too long, multi-line, invalid UTF-8 or untrimmed", s, got)
		}
	})
}

func TestWindow(t *testing.T) {
	h := []Step{{Text: "0"}, {Text: "1"}, {Text: "2"}, {Text: "3"}, {Text: "4"}}
	texts := func(s []Step) string {
		var b strings.Builder
		for _, x := range s {
			b.WriteString(x.Text)
		}
		return b.String()
	}
	for _, tc := range []struct {
		n       int
		want    string
		omitted int
	}{{0, "01234", 0}, {5, "01234", 0}, {9, "01234", 0}, {3, "034", 2}, {2, "04", 3}, {1, "0", 4}} {
		got, om := window(h, tc.n)
		if texts(got) != tc.want || om != tc.omitted {
			t.Errorf("window(5 steps, %d) = %q, %d omitted; want %q, %d", tc.n, texts(got), om, tc.want, tc.omitted)
		}
	}
}

// BenchmarkActorMessages renders the full-history prompt for histories of n
// steps: the cost the full-history baseline adds to every step.
func BenchmarkActorMessages(b *testing.B) {
	for _, n := range []int{10, 50, 200} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			h := make([]Step, n)
			for i := range h {
				h[i] = Step{Action: "go to cabinet " + strconv.Itoa(i), Text: current.Text}
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := actorMessages(envbridge.StyleHousehold, actorView{Goal: goal, History: h, Current: current, Admissible: adm}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestAriadnePromptsGolden pins the planning and decision prompts of the
// full-history and summary baselines on the Ariadne agent.
func TestAriadnePromptsGolden(t *testing.T) {
	plan := `{"main_goal": "put a hot apple in fridge", "plan_steps": [{"sub_goal_1": "find the apple", "reason": "seen on countertop 1"}]}`
	for _, tc := range []struct {
		name string
		view ariadneView
	}{
		{"fullhistory", ariadneView{Goal: goal, History: history, LastAction: current.Action, Observation: current.Text, Plan: plan, Actions: adm}},
		{"fullhistory-start", ariadneView{Goal: goal, Observation: history[0].Text}},
		{"summary", ariadneView{Goal: goal, SummaryMode: true, Summary: "The fridge 1 is empty; the apple is on countertop 1.", LastAction: current.Action, Observation: current.Text, Plan: plan, Actions: adm}},
	} {
		for _, tmpl := range []string{"plan", "decide"} {
			t.Run(tc.name+"-"+tmpl, func(t *testing.T) {
				p, err := render("ariadne_"+tmpl+".tmpl", tc.view.data())
				if err != nil {
					t.Fatal(err)
				}
				golden.Check(t, "ariadne-"+tc.name+"-"+tmpl+".golden", []byte(p+"\n"))
			})
		}
	}
}

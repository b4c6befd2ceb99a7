package ariadne

import "testing"

func TestParseDecision(t *testing.T) {
	tests := []struct{ in, reason, action string }{
		{`{"reason_for_action": "key is here", "action_to_take": "take key 1"}`, "key is here", "take key 1"},
		{"```json\n{\n \"reason_for_action\": \"go\"\n \"action_to_take\": \"go to kitchen\"\n}\n```", "go", "go to kitchen"},
		{`{"action_to_take": "say \"hi\""}`, "", `say "hi"`},
		// A bare line where the JSON was asked: taken as the action.
		{"take key", "", "take key"},
		{"Sure! Here is my decision:\n**Reason:** the key is here\n**Action:** \"take key 1.\"\nLet me know if you need more.", "the key is here", "take key 1"},
		{"I think about many things here and none of them is an action at all, really, not even one", "", ""},
	}
	for _, tc := range tests {
		r, a, ok := ParseDecision(tc.in)
		if r != tc.reason || a != tc.action || ok != (tc.action != "") {
			t.Errorf("ParseDecision(%q) = %q, %q, %v", tc.in, r, a, ok)
		}
	}
}

func TestParsePlan(t *testing.T) {
	for in, want := range map[string]string{
		"Here is the plan:\n{\"main_goal\": \"x\"}\nDone.": `{"main_goal": "x"}`,
		"  just text  ": "just text",
	} {
		if got := ParsePlan(in); got != want {
			t.Errorf("ParsePlan(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParseDecision(f *testing.F) {
	for _, s := range []string{`{"reason_for_action": "r", "action_to_take": "a"}`, "Action: go north", "", "{", `"action_to_take": "\u00"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if _, action, ok := ParseDecision(s); ok != (action != "") {
			t.Errorf("ParseDecision(%q): ok %v with action %q", s, ok, action)
		}
		ParsePlan(s)
	})
}

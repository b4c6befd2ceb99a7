package reply

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestStrip(t *testing.T) {
	for _, tc := range []struct {
		in, answer, reasoning string
		found                 bool
	}{
		{"go to drawer 1", "go to drawer 1", "", false},
		{"<think>\nThe drawer may hold it.\n</think>\n\nAction: go to drawer 1", "Action: go to drawer 1", "The drawer may hold it.", true},
		{"<THINK>upper</THINK>answer", "answer", "upper", true},
		{"<thinking>a</thinking>\n<reasoning>b</reasoning>\nanswer", "answer", "a\n\nb", true},
		// The template opened the block in the prompt: only its end is in
		// the content (DeepSeek-R1, QwQ).
		{"The user wants a summary. Thought: wrong\n</think>\n\nThe agent is in the kitchen.", "The agent is in the kitchen.", "The user wants a summary. Thought: wrong", true},
		// Cut off while thinking: nothing is an answer.
		{"<think>\nLet me see. Action: take poison", "", "Let me see. Action: take poison", true},
		{"Preface <think> never closed", "Preface", "never closed", true},
		{"<think></think>answer", "answer", "", true},
		{"[THINK]hm[/THINK]answer", "answer", "hm", true},
		{"◁think▷hm◁/think▷answer", "answer", "hm", true},
		{"<|begin_of_thought|>hm<|end_of_thought|>answer", "answer", "hm", true},
		// Nested and stray tags.
		{"<think>a<think>b</think>c</think>answer", "answer", "a<think>b\n\nc", true},
		{"<think>a</think>b</think>answer", "answer", "a\n\nb", true},
		// Harmony (gpt-oss): analysis, then the final channel.
		{"<|channel|>analysis<|message|>Need action. Action: poison<|end|><|start|>assistant<|channel|>final<|message|>Action: go to drawer 1<|return|>", "Action: go to drawer 1", "<|channel|>analysis<|message|>Need action. Action: poison<|end|><|start|>assistant", true},
		{"<|channel|>final <|constrain|>json<|message|>{\"a\":1}", "{\"a\":1}", "", true},
		{"<|start|>assistant<|channel|>analysis<|message|>still thinking", "", "<|channel|>analysis<|message|>still thinking", true},
		// Tags in other words are text.
		{"I think the drawer is open.", "I think the drawer is open.", "", false},
		{"<b>bold</b> answer", "<b>bold</b> answer", "", false},
	} {
		a, r, found := Strip(tc.in)
		if a != tc.answer || r != tc.reasoning || found != tc.found {
			t.Errorf("Strip(%q) = %q, %q, %v; want %q, %q, %v", tc.in, a, r, found, tc.answer, tc.reasoning, tc.found)
		}
	}
}

// FuzzStrip: the stripper never panics, never grows its input, keeps valid
// UTF-8 valid, leaves no think tag or channel header in the answer, finds
// nothing in its own answer, and finds nothing in text without tags.
func FuzzStrip(f *testing.F) {
	for _, s := range []string{
		"<think>a</think>b", "a</think>b", "<think>open", "<thinking>x</THINKING>y", "[THINK]x[/THINK]y",
		"<|channel|>analysis<|message|>x<|end|><|start|>assistant<|channel|>final<|message|>y<|return|>",
		"<thi<think>x</think>nk>y", "</think></think><think>", "plain answer", "<think attr=\"1\">x</think>y",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, r, found := Strip(s)
		if len(a) > len(s) || len(r) > len(s) {
			t.Fatalf("Strip(%q) grew: %q, %q", s, a, r)
		}
		if utf8.ValidString(s) && (!utf8.ValidString(a) || !utf8.ValidString(r)) {
			t.Fatalf("Strip(%q) is not valid UTF-8: %q, %q", s, a, r)
		}
		if HasReasoningTags(a) {
			t.Fatalf("Strip(%q) left a tag in the answer %q", s, a)
		}
		if a2, r2, found2 := Strip(a); a2 != a || r2 != "" || found2 {
			t.Fatalf("Strip of the answer %q found more: %q, %q", a, a2, r2)
		}
		if !HasReasoningTags(s) && (found || a != strings.TrimSpace(s)) {
			t.Fatalf("Strip(%q) without tags changed it: %q, %v", s, a, found)
		}
		if found != (a != strings.TrimSpace(s) || r != "" || HasReasoningTags(s)) {
			t.Fatalf("Strip(%q) found=%v but the answer is %q", s, found, a)
		}
	})
}

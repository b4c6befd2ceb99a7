package summarize

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/internal/golden"
	"github.com/samem/trainer/llm"
)

func TestPromptsGolden(t *testing.T) {
	hist := []Turn{
		{Text: "You are in the middle of a room. Looking quickly around you, you see a cabinet 1, a countertop 1, and a fridge 1.\n\nYour task is to: put a clean apple in fridge."},
		{Action: "go to countertop 1", Text: "You arrive at countertop 1. On the countertop 1, you see a apple 1."},
	}
	for _, style := range []envbridge.Style{envbridge.StyleHousehold, envbridge.StyleScience, envbridge.StyleFiction} {
		t.Run(string(style), func(t *testing.T) {
			h := hist
			if style == envbridge.StyleFiction {
				h = nil
			}
			msgs, err := Messages(style, "put a clean apple in fridge.", h, "take apple 1 from countertop 1", "You pick up the apple 1 from the countertop 1.")
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, "prompt-"+string(style)+".golden", golden.Messages(msgs))
		})
	}
}

// recorder is a Chatter that answers with fixed text and keeps the requests.
type recorder struct {
	reply string
	reqs  []llm.Request
}

func (r *recorder) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	r.reqs = append(r.reqs, req)
	return llm.Response{Text: r.reply}, nil
}

func TestSessionCarriesHistory(t *testing.T) {
	for _, tc := range []struct {
		style     envbridge.Style
		wantFirst bool // the first observation is in the third prompt
	}{{envbridge.StyleHousehold, true}, {envbridge.StyleFiction, false}} {
		rec := &recorder{reply: "Summary: You have found the target object."}
		s := NewLLM(rec).Begin(envbridge.Task{Goal: "g"}, tc.style)
		ctx := context.Background()
		for i, obs := range []string{"first text", "second text", "third text"} {
			got, err := s.Summarize(ctx, map[bool]string{true: "look"}[i > 0], envbridge.Observation{Text: obs})
			if err != nil {
				t.Fatal(err)
			}
			if got != "You have found the target object." {
				t.Errorf("Summarize = %q", got)
			}
		}
		last := rec.reqs[2].Messages[1].Content
		if strings.Contains(last, "first text") != tc.wantFirst {
			t.Errorf("%s: third prompt contains first observation = %v, want %v:\n%s", tc.style, !tc.wantFirst, tc.wantFirst, last)
		}
		if rec.reqs[0].Purpose != Purpose || rec.reqs[0].Temperature != 0 {
			t.Errorf("request purpose/temperature = %q/%v", rec.reqs[0].Purpose, rec.reqs[0].Temperature)
		}
	}
}

func TestParseReply(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"You have found the target object.", "You have found the target object."},
		{"Summary: You hold it.\n\n", "You hold it."},
		{"SUMMARY:   a\n b ", "a b"},
		{"```\nYou are at the final destination.\n```", "You are at the final destination."},
		{`"quoted"`, "quoted"},
	} {
		got, err := ParseReply(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseReply(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "   ", "Summary:", "``````"} {
		if _, err := ParseReply(bad); !errors.Is(err, ErrEmptySummary) {
			t.Errorf("ParseReply(%q) error = %v, want ErrEmptySummary", bad, err)
		}
	}
	long := strings.Repeat("word ", 1000)
	if got, _ := ParseReply(long); len(got) > MaxStateLen {
		t.Errorf("ParseReply(long) length %d > %d", len(got), MaxStateLen)
	}
}

func FuzzParseReply(f *testing.F) {
	for _, s := range []string{"Summary: x", "", "```a```", "é" + strings.Repeat("ü", 600)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseReply(s)
		if err == nil && (got == "" || len(got) > MaxStateLen) {
			t.Fatalf("ParseReply(%q) = %q without error", s, got)
		}
	})
}

func TestRaw(t *testing.T) {
	s := Raw{}.Begin(envbridge.Task{}, envbridge.StyleHousehold)
	got, err := s.Summarize(context.Background(), "", envbridge.Observation{Text: "  You arrive at\n desk 1. "})
	if err != nil || got != "You arrive at desk 1." {
		t.Errorf("Raw = %q, %v", got, err)
	}
	if _, err := s.Summarize(context.Background(), "", envbridge.Observation{}); !errors.Is(err, ErrEmptySummary) {
		t.Errorf("Raw(empty) error = %v", err)
	}
}

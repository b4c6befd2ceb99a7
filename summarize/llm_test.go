package summarize

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/internal/golden"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/llmtest"
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
	if got, err := s.Summarize(context.Background(), "", envbridge.Observation{}); err != nil || got != NoObservation {
		t.Errorf("Raw(empty) = %q, %v; want %q", got, err, NoObservation)
	}
}

// TestReasoningNeverAState: a summary is read after the reasoning is taken
// out, in every shape a reasoning model gives it; a reply cut off or left
// with nothing once its reasoning is out is asked again with more room,
// and after the budget the state is the raw observation (counted as fell
// back), never an error.
func TestReasoningNeverAState(t *testing.T) {
	obs := envbridge.Observation{Text: "You arrive at desk 1."}
	for _, tc := range []struct {
		name   string
		script []llmtest.Scripted
		want   string
		stats  llm.Stats
	}{
		{"closed block", []llmtest.Scripted{{Text: "<think>Summary: poison</think>\nYou hold the target object."}},
			"You hold the target object.", llm.Stats{Replies: 1, Reasoned: 1}},
		{"only the closing tag", []llmtest.Scripted{{Text: "Summary: poison\n</think>\n\nYou hold the target object."}},
			"You hold the target object.", llm.Stats{Replies: 1, Reasoned: 1}},
		{"reasoning field", []llmtest.Scripted{{Text: "You hold the target object.", Reasoning: "Summary: poison"}},
			"You hold the target object.", llm.Stats{Replies: 1, Reasoned: 1}},
		{"cut off, then an answer", []llmtest.Scripted{
			{Text: "<think>Summary: poison", FinishReason: "length"},
			{Text: "You hold the target object.", FinishReason: "stop"}},
			"You hold the target object.", llm.Stats{Replies: 2, Unusable: 1, AskedAgain: 1, Reasoned: 1}},
		{"cut off with text", []llmtest.Scripted{
			{Text: "You hold the", FinishReason: "length"},
			{Text: "You hold the target object."}},
			"You hold the target object.", llm.Stats{Replies: 2, Unusable: 1, AskedAgain: 1}},
		{"never usable", []llmtest.Scripted{
			{Text: "", Reasoning: "Summary: poison", FinishReason: "length"},
			{Text: "<think>Summary: poison</think>"},
			{Text: "Summary:"}},
			"You arrive at desk 1.", llm.Stats{Replies: 3, Unusable: 3, AskedAgain: 2, FellBack: 1, Reasoned: 2}},
		{"structured", []llmtest.Scripted{{Text: `{"summary": "You hold the target object."}`, Structured: true}},
			"You hold the target object.", llm.Stats{Replies: 1}},
		{"structured request ignored", []llmtest.Scripted{{Text: "Summary: You hold the target object.", Structured: true}},
			"You hold the target object.", llm.Stats{Replies: 1, Repaired: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ch := llmtest.NewChatter(t)
			ch.Add(tc.script...)
			meter := llm.NewMeter(nil)
			ctx := llm.WithMeter(context.Background(), meter)
			got, err := NewLLM(ch).Begin(envbridge.Task{Goal: "g"}, envbridge.StyleHousehold).Summarize(ctx, "", obs)
			if err != nil || got != tc.want {
				t.Fatalf("Summarize = %q, %v; want %q", got, err, tc.want)
			}
			if st := meter.Report().ByPurpose[Purpose]; st != tc.stats {
				t.Errorf("counts %+v, want %+v", st, tc.stats)
			}
			reqs := ch.Requests()
			if reqs[0].Schema != Schema || reqs[0].MaxTokens != 150 {
				t.Errorf("first request: schema %v, max tokens %d", reqs[0].Schema, reqs[0].MaxTokens)
			}
			for i, r := range reqs[1:] {
				if r.MaxTokens != 150<<(i+1) || r.Again != i+1 || !strings.Contains(r.Messages[1].Content, "Answer now") {
					t.Errorf("request %d asked again with %d tokens, Again %d:\n%s", i+2, r.MaxTokens, r.Again, r.Messages[1].Content)
				}
			}
		})
	}
}

// TestTransportErrorStops: a failed call (the client's retries spent) is
// the summariser's error, the one thing that may stop a run.
func TestTransportErrorStops(t *testing.T) {
	ch := llmtest.NewChatter(t)
	boom := errors.New("server gone")
	ch.Add(llmtest.Scripted{Err: boom})
	if _, err := NewLLM(ch).Begin(envbridge.Task{}, envbridge.StyleHousehold).Summarize(context.Background(), "", envbridge.Observation{Text: "x"}); !errors.Is(err, boom) {
		t.Errorf("err = %v, want the transport error", err)
	}
}

func TestSchemaGolden(t *testing.T) { golden.Schema(t, Schema) }

// TestWholeHistoryByDefault: Eq. 2 summarises Obs_{0:t}, so after more
// steps than any bound the default prompt still carries the first
// observation; a MaxHistory bound keeps only the last steps.
func TestWholeHistoryByDefault(t *testing.T) {
	for _, tc := range []struct {
		max       int
		wantFirst bool
	}{{0, true}, {30, false}} {
		rec := &recorder{reply: "Summary: You are in the kitchen."}
		sum := NewLLM(rec)
		if tc.max > 0 {
			sum.MaxHistory = tc.max
		}
		s := sum.Begin(envbridge.Task{Goal: "g"}, envbridge.StyleHousehold)
		for i := range 45 {
			action := ""
			if i > 0 {
				action = "look"
			}
			if _, err := s.Summarize(context.Background(), action, envbridge.Observation{Text: fmt.Sprintf("observation number %d", i)}); err != nil {
				t.Fatal(err)
			}
		}
		last := rec.reqs[len(rec.reqs)-1].Messages[1].Content
		if got := strings.Contains(last, "observation number 0"); got != tc.wantFirst {
			t.Errorf("max history %d: the 45th prompt carries the first observation = %v, want %v", tc.max, got, tc.wantFirst)
		}
	}
}

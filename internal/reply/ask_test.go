package reply

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/llmtest"
)

func TestAgain(t *testing.T) {
	orig := llm.Request{Purpose: "p", MaxTokens: 100, Messages: []llm.Message{
		{Role: "system", Content: "sys"}, {Role: "user", Content: "question"}, {Role: "assistant", Content: "a"}}}
	for n, tc := range []struct {
		why       error
		tokens    int
		substring string
	}{
		{fmtErr(ErrCutOff), 200, "ran out of room"},
		{fmtErr(ErrEmpty), 400, "gave no answer"},
		{errors.New("no thought"), 400, "could not be read"},
	} {
		r := Again(orig, n+1, tc.why)
		if r.MaxTokens != tc.tokens || r.Again != n+1 {
			t.Errorf("Again %d: %d tokens, Again %d", n+1, r.MaxTokens, r.Again)
		}
		if got := r.Messages[1].Content; !strings.HasPrefix(got, "question\n\n(Try ") || !strings.Contains(got, tc.substring) {
			t.Errorf("Again %d: %q", n+1, got)
		}
		if orig.Messages[1].Content != "question" || len(r.Messages) != 3 {
			t.Error("Again changed the original request")
		}
	}
	if a, b := Again(orig, 1, ErrEmpty), Again(orig, 2, ErrEmpty); a.Messages[1].Content == b.Messages[1].Content {
		t.Error("two tries ask in the same words (the response cache would answer the second)")
	}
	none := Again(llm.Request{}, 1, ErrEmpty)
	if len(none.Messages) != 1 || none.Messages[0].Role != "user" || none.MaxTokens != 0 {
		t.Errorf("Again without a user message: %+v", none)
	}
}

func fmtErr(err error) error { return errors.Join(errors.New("p"), err) }

// TestAsk: reasoning never reaches use; a cut-off or empty reply, or one
// use rejects, is asked again within the budget and counted; the last is
// counted with the role's fallback and ErrUnusable returned; a failed call
// is returned as it is.
func TestAsk(t *testing.T) {
	ch := llmtest.NewChatter(t)
	ch.Add(
		llmtest.Scripted{Text: "<think>poison", FinishReason: "length"},
		llmtest.Scripted{Text: "unreadable", Reasoning: "poison"},
		llmtest.Scripted{Text: "<think>poison</think> good "},
	)
	meter := llm.NewMeter(nil)
	ctx := llm.WithMeter(context.Background(), meter)
	var seen []string
	use := func(a Answer) (bool, error) {
		seen = append(seen, a.Text)
		if a.Text != "good" {
			return false, errors.New("not good")
		}
		return true, nil
	}
	a, err := Ask(ctx, ch, llm.Request{Purpose: "p", MaxTokens: 10, Messages: []llm.Message{{Role: "user", Content: "q"}}}, 3, llm.FellBack, use)
	if err != nil || a.Text != "good" || a.Calls != 3 || a.Reasoning != "poison" {
		t.Fatalf("Ask = %+v, %v", a, err)
	}
	if strings.Join(seen, "|") != "unreadable|good" {
		t.Errorf("use saw %q", seen)
	}
	if st := meter.Report().ByPurpose["p"]; st != (llm.Stats{Replies: 3, Repaired: 1, Unusable: 2, AskedAgain: 2, Reasoned: 3}) {
		t.Errorf("counts %+v", st)
	}
	if got := ch.Requests(); got[1].MaxTokens != 20 || got[2].MaxTokens != 40 {
		t.Errorf("room %d, %d", got[1].MaxTokens, got[2].MaxTokens)
	}

	ch = llmtest.NewChatter(t, "", "")
	meter = llm.NewMeter(nil)
	_, err = Ask(llm.WithMeter(context.Background(), meter), ch, llm.Request{Purpose: "p"}, 2, llm.Skipped, use)
	if !errors.Is(err, ErrUnusable) || !errors.Is(err, ErrEmpty) {
		t.Errorf("budget spent: %v", err)
	}
	if st := meter.Report().ByPurpose["p"]; st != (llm.Stats{Replies: 2, Unusable: 2, AskedAgain: 1, Skipped: 1}) {
		t.Errorf("counts %+v", st)
	}

	boom := errors.New("server gone")
	ch = llmtest.NewChatter(t)
	ch.Add(llmtest.Scripted{Err: boom})
	if _, err := Ask(context.Background(), ch, llm.Request{Purpose: "p"}, 3, llm.Skipped, use); !errors.Is(err, boom) || errors.Is(err, ErrUnusable) {
		t.Errorf("transport failure: %v", err)
	}
}

func TestDecode(t *testing.T) {
	var v struct{ A string }
	if !Decode(` {"a": "x"} `, &v) || v.A != "x" {
		t.Errorf("Decode = %+v", v)
	}
	for _, bad := range []string{"a: x", "```json\n{}\n```", `{"a": `, `["a"]`} {
		if Decode(bad, &v) {
			t.Errorf("Decode(%q) ok", bad)
		}
	}
}

func TestWithChoices(t *testing.T) {
	s := &llm.Schema{Name: "a", JSON: []byte(`{"type":"object","properties":{"action":{"type":"string"},"n":{"type":"integer"}},"required":["action","n"],"additionalProperties":false}`)}
	got := WithChoices(s, "action", []string{"look", "go north"})
	if got.Name != "a" || !strings.Contains(string(got.JSON), `"enum":["look","go north"]`) || strings.Contains(string(s.JSON), "enum") {
		t.Errorf("WithChoices = %s (original %s)", got.JSON, s.JSON)
	}
	for _, same := range []*llm.Schema{WithChoices(s, "action", nil), WithChoices(s, "n", []string{"1"}), WithChoices(s, "missing", []string{"x"})} {
		if same != s {
			t.Errorf("WithChoices changed %s", same.JSON)
		}
	}
}

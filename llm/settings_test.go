package llm

import (
	"context"
	"testing"
)

func TestParseMaxTokens(t *testing.T) {
	got, err := ParseMaxTokens(" 512, summarize=200 ,clin=300,clin.controller=64")
	if err != nil || len(got) != 4 || got[""] != 512 || got["summarize"] != 200 || got["clin"] != 300 || got["clin.controller"] != 64 {
		t.Fatalf("ParseMaxTokens = %v, %v", got, err)
	}
	if got, err := ParseMaxTokens(""); err != nil || len(got) != 0 {
		t.Errorf("empty: %v, %v", got, err)
	}
	for _, bad := range []string{"0", "-1", "x", "=5", "a=", "a=1,a=2", "1,2", "a=99999999"} {
		if _, err := ParseMaxTokens(bad); err == nil {
			t.Errorf("ParseMaxTokens(%q) accepted", bad)
		}
	}
}

func TestSettingsApply(t *testing.T) {
	s := Settings{MaxTokens: map[string]int{"": 512, "clin": 300, "clin.controller": 64}, ReasoningEffort: "low", NoSchemas: true}
	for purpose, want := range map[string]int{"summarize": 512, "clin.memory": 300, "clin.controller": 64} {
		if got := s.MaxTokensFor(purpose); got != want {
			t.Errorf("MaxTokensFor(%s) = %d, want %d", purpose, got, want)
		}
	}
	schema := &Schema{Name: "x", JSON: []byte(`{}`)}
	r := s.Apply(Request{Purpose: "clin.controller", MaxTokens: 256, Schema: schema, Again: 1})
	if r.MaxTokens != 128 || r.ReasoningEffort != "low" || r.Schema != nil {
		t.Errorf("Apply = %+v", r)
	}
	if r := s.Apply(Request{Purpose: "think", Again: 9}); r.MaxTokens != 512<<MaxRoomDoublings {
		t.Errorf("room after many tries: %d", r.MaxTokens)
	}
	if r := (Settings{}).Apply(Request{MaxTokens: 7, Schema: schema}); r.MaxTokens != 7 || r.Schema != schema || r.ReasoningEffort != "" {
		t.Errorf("zero settings changed the request: %+v", r)
	}
	var got Request
	next := chatFunc(func(_ context.Context, req Request) (Response, error) { got = req; return Response{}, nil })
	if c := (Settings{}).Chatter(next); c == nil {
		t.Fatal("nil chatter")
	}
	if _, err := s.Chatter(next).Chat(context.Background(), Request{Purpose: "check", MaxTokens: 20}); err != nil || got.MaxTokens != 512 {
		t.Errorf("Chatter sent %+v, %v", got, err)
	}
}

type chatFunc func(context.Context, Request) (Response, error)

func (f chatFunc) Chat(ctx context.Context, r Request) (Response, error) { return f(ctx, r) }

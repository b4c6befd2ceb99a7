package llm

import (
	"context"
	"testing"
)

func TestServedAndReportAdd(t *testing.T) {
	a := NewMeter(map[string]Price{"m": {PromptPerM: 1}})
	a.Call("think", "m", Usage{PromptTokens: 10, CompletionTokens: 2})
	a.NoteServed("m", "m-2024-08-06", "fp_1")
	a.NoteServed("m", "m-2024-08-06", "fp_1")
	b := NewMeter(nil)
	b.Call("think", "m", Usage{PromptTokens: 5})
	b.Call("check", "x", Usage{CompletionTokens: 3})
	b.NoteServed("m", "m-2024-08-06", "fp_2")
	b.NoteServed("m", "m-2024-08-06", "fp_1")
	sum := a.Report().Add(b.Report())
	if sum.Total.Calls != 3 || sum.Total.PromptTokens != 15 || sum.Total.CompletionTokens != 5 {
		t.Errorf("total %+v", sum.Total)
	}
	if s := sum.ByPurpose["think"]; s.Calls != 2 || s.PromptTokens != 15 {
		t.Errorf("think %+v", s)
	}
	if len(sum.Unpriced) != 2 || sum.Unpriced[0] != "m" || sum.Unpriced[1] != "x" {
		t.Errorf("unpriced %v", sum.Unpriced) // b has no prices at all
	}
	want := []Served{{"m", "m-2024-08-06", "fp_1", 3}, {"m", "m-2024-08-06", "fp_2", 1}}
	if len(sum.Served) != 2 || sum.Served[0] != want[0] || sum.Served[1] != want[1] {
		t.Errorf("served %+v, want %+v", sum.Served, want)
	}
}

func TestEpisodeTokens(t *testing.T) {
	CountTokens(context.Background(), Usage{PromptTokens: 3}) // outside an episode: ignored
	ctx, e := WithEpisode(context.Background(), 7)
	CountTokens(ctx, Usage{PromptTokens: 3, CompletionTokens: 4})
	CountTokens(ctx, Usage{PromptTokens: 1})
	if got, ok := EpisodeFrom(ctx); !ok || got.Route != 7 || e.Tokens() != 8 {
		t.Errorf("episode %+v %v, tokens %d", got, ok, e.Tokens())
	}
}

package llm

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"sync"
	"testing"
)

func TestMeter(t *testing.T) {
	m := NewMeter(map[string]Price{"gpt": {PromptPerM: 2, CompletionPerM: 8}, "emb": {PromptPerM: 0.02}})
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.Call("summarize", "gpt", Usage{PromptTokens: 1000, CompletionTokens: 100})
			m.Call("think", "gpt", Usage{PromptTokens: 500, CompletionTokens: 50})
			m.Call(EmbedPurpose, "emb", Usage{PromptTokens: 10_000})
			m.Call("check", "local", Usage{PromptTokens: 7, CompletionTokens: 3})
			m.Hit("summarize", "gpt", Usage{PromptTokens: 3, CompletionTokens: 1})
			m.Request("think", "gpt")
			m.Texts(EmbedPurpose, "emb", 4)
			m.Retry("think", "gpt")
			m.Error("check", "local")
		}()
	}
	wg.Wait()
	r := m.Report()
	sum := r.ByPurpose["summarize"]
	if sum.Calls != 10 || sum.PromptTokens != 10_000 || sum.CompletionTokens != 1000 || sum.CacheHits != 10 {
		t.Errorf("summarize = %+v", sum)
	}
	if want := (10_000*2.0 + 1000*8.0) / 1e6; math.Abs(sum.CostUSD-want) > 1e-12 {
		t.Errorf("summarize cost = %v, want %v", sum.CostUSD, want)
	}
	if th := r.ByPurpose["think"]; th.Retries != 10 || th.Calls != 10 {
		t.Errorf("think = %+v", th)
	}
	if e := r.ByPurpose[EmbedPurpose]; math.Abs(e.CostUSD-100_000*0.02/1e6) > 1e-12 {
		t.Errorf("embed cost = %v", e.CostUSD)
	}
	if r.Total.Calls != 40 || r.Total.Errors != 10 || r.Total.CacheHits != 10 {
		t.Errorf("total = %+v", r.Total)
	}
	if g := r.ByModel["gpt"]; g.Calls != 20 || g.PromptTokens != 15_000 {
		t.Errorf("by model gpt = %+v", g)
	}
	if len(r.Unpriced) != 1 || r.Unpriced[0] != "local" {
		t.Errorf("Unpriced = %v, want [local]", r.Unpriced)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b, &back); err != nil || back.Total != r.Total || back.ByPurpose["think"] != r.ByPurpose["think"] {
		t.Errorf("JSON round trip: %v, %+v", err, back.Total)
	}
	s := r.String()
	for _, want := range []string{"llm total", "summarize", "think", "embed", "no price for local", "10 retries"} {
		if !strings.Contains(s, want) {
			t.Errorf("String() lacks %q:\n%s", want, s)
		}
	}
}

func TestNilMeter(t *testing.T) {
	var m *Meter
	m.Call("x", "y", Usage{PromptTokens: 1})
	m.Hit("x", "y", Usage{})
	m.Request("x", "y")
	m.Texts("x", "y", 1)
	m.Retry("x", "y")
	m.Error("x", "y")
	if r := m.Report(); r.Total != (Stats{}) || len(r.ByPurpose) != 0 {
		t.Errorf("nil meter report = %+v", r)
	}
}

func TestParsePrices(t *testing.T) {
	tests := []struct {
		in   string
		want map[string]Price
		bad  bool
	}{
		{"", map[string]Price{}, false},
		{"gpt-4o-mini=0.15/0.60, text-embedding-3-small=0.02", map[string]Price{
			"gpt-4o-mini": {0.15, 0.6}, "text-embedding-3-small": {0.02, 0}}, false},
		{"a=1/2/3", nil, true},
		{"=1/2", nil, true},
		{"a", nil, true},
		{"a=x/1", nil, true},
		{"a=-1/1", nil, true},
		{"a=NaN", nil, true},
	}
	for _, tc := range tests {
		got, err := ParsePrices(tc.in)
		if (err != nil) != tc.bad {
			t.Errorf("ParsePrices(%q) err = %v, want error %v", tc.in, err, tc.bad)
			continue
		}
		if tc.bad {
			continue
		}
		if len(got) != len(tc.want) {
			t.Errorf("ParsePrices(%q) = %v, want %v", tc.in, got, tc.want)
		}
		for k, v := range tc.want {
			if got[k] != v {
				t.Errorf("ParsePrices(%q)[%q] = %v, want %v", tc.in, k, got[k], v)
			}
		}
	}
}

func FuzzParsePrices(f *testing.F) {
	for _, s := range []string{"", "a=1/2", "gpt-4o-mini=0.15/0.60,emb=0.02", "a=1e400", "=,", "a=1/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePrices(s)
		if err != nil {
			return
		}
		for k, v := range p {
			if k == "" || !(v.PromptPerM >= 0 && v.CompletionPerM >= 0) || math.IsInf(v.PromptPerM, 0) {
				t.Fatalf("ParsePrices(%q) accepted %q=%+v", s, k, v)
			}
		}
	})
}

// TestMeterAccount: the reply-parse fields of the usage account, and a call
// made with a method's meter in its context counted in both meters once.
func TestMeterAccount(t *testing.T) {
	run := NewMeter(nil)
	m := NewMeter(nil)
	m.Hit("think", "gpt", Usage{PromptTokens: 30, CompletionTokens: 5})
	m.Request("think", "gpt")
	m.Request("think", "gpt")
	m.Texts(EmbedPurpose, "emb", 7)
	if th := m.Report().ByPurpose["think"]; th.CacheHits != 1 || th.CachedTokens != 35 || th.Requests != 2 || th.PromptTokens != 0 || th.Calls != 0 {
		t.Errorf("think = %+v, want 1 hit of 35 cached tokens, 2 requests, no sent tokens", th)
	}
	if e := m.Report().ByPurpose[EmbedPurpose]; e.EmbedTexts != 7 {
		t.Errorf("embed texts = %d, want 7", e.EmbedTexts)
	}
	ctx := WithMeter(t.Context(), m)
	MetersFor(ctx, run).Request("x", "gpt")
	MetersFor(ctx, run).Call("x", "gpt", Usage{PromptTokens: 2})
	if a, b := run.Report().ByPurpose["x"], m.Report().ByPurpose["x"]; a.Requests != 1 || b.Requests != 1 || a.PromptTokens != 2 || b.PromptTokens != 2 {
		t.Errorf("run %+v, method %+v: want each 1 request 2 tokens", a, b)
	}
	// The same meter in the context and as the client's: counted once.
	MetersFor(WithMeter(t.Context(), run), run).Request("y", "gpt")
	if n := run.Report().ByPurpose["y"].Requests; n != 1 {
		t.Errorf("requests = %d, want 1", n)
	}
	if MeterFrom(t.Context()) != nil {
		t.Error("MeterFrom of a bare context is not nil")
	}
}

// TestReasoningCounts: reasoning tokens are counted apart (and summed by
// purpose, model and in total), replies with reasoning per role, and the
// printed account names both.
func TestReasoningCounts(t *testing.T) {
	m := NewMeter(nil)
	m.Call("think", "r1", Usage{PromptTokens: 10, CompletionTokens: 50, ReasoningTokens: 40})
	m.Call("think", "r1", Usage{PromptTokens: 10, CompletionTokens: 5})
	ctx := WithMeter(context.Background(), m)
	NoteReasoning(ctx, "think")
	NoteParsed(ctx, "think", false)
	r := m.Report()
	if r.Total.ReasoningTokens != 40 || r.ByPurpose["think"].ReasoningTokens != 40 || r.ByModel["r1"].ReasoningTokens != 40 {
		t.Errorf("reasoning tokens: %+v", r)
	}
	if r.ByPurpose["think"].Reasoned != 1 || r.ByModel["r1"].Reasoned != 0 {
		t.Errorf("reasoned: %+v", r.ByPurpose["think"])
	}
	if s := r.String(); !strings.Contains(s, "(40 reasoning)") || !strings.Contains(s, "1 with reasoning taken out") {
		t.Errorf("String:\n%s", s)
	}
}

package llm

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// EmbedPurpose is the Purpose under which a Meter counts embedding calls
// (the Embedder contract has no Purpose of its own).
const EmbedPurpose = "embed"

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	PromptPerM     float64 `json:"prompt_per_m"`
	CompletionPerM float64 `json:"completion_per_m"`
}

// Stats counts the calls of one purpose (or of a whole run).
type Stats struct {
	// Calls is the number of calls answered by a server (retries are not
	// extra calls; cache hits are not calls).
	Calls int64 `json:"calls"`
	// PromptTokens and CompletionTokens are the tokens of those calls, as
	// the server reported them.
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	// CacheHits is the number of calls answered from the response cache
	// (no request, no cost).
	CacheHits int64 `json:"cache_hits"`
	// Retries is the number of extra attempts made after transient failures.
	Retries int64 `json:"retries"`
	// Errors is the number of calls that failed for good.
	Errors int64 `json:"errors"`
	// CostUSD is the estimated cost of the calls at the configured prices;
	// tokens of models without a price count as 0.
	CostUSD float64 `json:"cost_usd"`
}

func (s *Stats) add(o Stats) {
	s.Calls += o.Calls
	s.PromptTokens += o.PromptTokens
	s.CompletionTokens += o.CompletionTokens
	s.CacheHits += o.CacheHits
	s.Retries += o.Retries
	s.Errors += o.Errors
	s.CostUSD += o.CostUSD
}

// Report is a snapshot of a Meter: what a run prints at the end and records
// with its results. It is JSON-serialisable.
type Report struct {
	// ByPurpose maps each purpose ("summarize", "think", "embed", ...) to its
	// counts.
	ByPurpose map[string]Stats `json:"by_purpose"`
	// ByModel maps each model name to its counts.
	ByModel map[string]Stats `json:"by_model"`
	// Total sums every purpose.
	Total Stats `json:"total"`
	// Unpriced lists the models that made calls but have no price, so their
	// cost is missing from CostUSD; sorted.
	Unpriced []string `json:"unpriced,omitempty"`
}

// String is a short human-readable summary, one line for the total and one
// per purpose, for the end of a run.
func (r Report) String() string {
	var b strings.Builder
	line := func(name string, s Stats) {
		fmt.Fprintf(&b, "%-18s %6d calls %6d cached  %9s prompt %9s completion tokens  $%.4f",
			name, s.Calls, s.CacheHits, count(s.PromptTokens), count(s.CompletionTokens), s.CostUSD)
		if s.Retries > 0 || s.Errors > 0 {
			fmt.Fprintf(&b, "  %d retries %d errors", s.Retries, s.Errors)
		}
		b.WriteByte('\n')
	}
	line("llm total", r.Total)
	names := make([]string, 0, len(r.ByPurpose))
	for p := range r.ByPurpose {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		line("  "+p, r.ByPurpose[p])
	}
	if len(r.Unpriced) > 0 {
		fmt.Fprintf(&b, "  (no price for %s: cost not counted)\n", strings.Join(r.Unpriced, ", "))
	}
	return b.String()
}

// count formats n with k/M suffixes (1234567 -> "1.23M").
func count(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.2fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// Meter accounts usage by purpose and model. It is safe for concurrent use;
// a nil *Meter accepts every call and records nothing, so clients can take
// an optional one.
type Meter struct {
	mu     sync.Mutex
	prices map[string]Price
	stats  map[key]*Stats
}

type key struct{ purpose, model string }

// NewMeter returns a Meter that prices calls with prices (model name to
// price; nil: no prices, cost 0).
func NewMeter(prices map[string]Price) *Meter {
	p := make(map[string]Price, len(prices))
	for k, v := range prices {
		p[k] = v
	}
	return &Meter{prices: p, stats: map[key]*Stats{}}
}

func (m *Meter) get(purpose, model string) *Stats {
	k := key{purpose, model}
	s := m.stats[k]
	if s == nil {
		s = &Stats{}
		m.stats[k] = s
	}
	return s
}

// Call records a call that a server answered with usage u.
func (m *Meter) Call(purpose, model string, u Usage) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.get(purpose, model)
	s.Calls++
	s.PromptTokens += int64(u.PromptTokens)
	s.CompletionTokens += int64(u.CompletionTokens)
}

// Hit records a call answered from the response cache.
func (m *Meter) Hit(purpose, model string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.get(purpose, model).CacheHits++
	m.mu.Unlock()
}

// Retry records one extra attempt after a transient failure.
func (m *Meter) Retry(purpose, model string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.get(purpose, model).Retries++
	m.mu.Unlock()
}

// Error records a call that failed for good.
func (m *Meter) Error(purpose, model string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.get(purpose, model).Errors++
	m.mu.Unlock()
}

// Report returns a snapshot of the counts with costs filled in. A nil
// Meter gives an empty Report.
func (m *Meter) Report() Report {
	r := Report{ByPurpose: map[string]Stats{}, ByModel: map[string]Stats{}}
	if m == nil {
		return r
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	unpriced := map[string]bool{}
	for k, s := range m.stats {
		st := *s
		if p, ok := m.prices[k.model]; ok {
			st.CostUSD = (float64(st.PromptTokens)*p.PromptPerM + float64(st.CompletionTokens)*p.CompletionPerM) / 1e6
		} else if st.PromptTokens+st.CompletionTokens > 0 {
			unpriced[k.model] = true
		}
		bp := r.ByPurpose[k.purpose]
		bp.add(st)
		r.ByPurpose[k.purpose] = bp
		bm := r.ByModel[k.model]
		bm.add(st)
		r.ByModel[k.model] = bm
		r.Total.add(st)
	}
	for model := range unpriced {
		r.Unpriced = append(r.Unpriced, model)
	}
	sort.Strings(r.Unpriced)
	return r
}

// ParsePrices parses a price list as given on a command line:
// comma-separated "model=prompt/completion" entries in US dollars per
// million tokens, e.g. "gpt-4o-mini=0.15/0.60,text-embedding-3-small=0.02/0".
// A lone number ("model=0.02") prices prompt tokens only (embeddings). The
// empty string gives an empty map.
func ParsePrices(s string) (map[string]Price, error) {
	out := map[string]Price{}
	if strings.TrimSpace(s) == "" {
		return out, nil
	}
	for _, entry := range strings.Split(s, ",") {
		model, val, ok := strings.Cut(strings.TrimSpace(entry), "=")
		model = strings.TrimSpace(model)
		if !ok || model == "" {
			return nil, fmt.Errorf("price %q: want model=prompt/completion", entry)
		}
		ps, cs, hasC := strings.Cut(val, "/")
		var p Price
		var err error
		if p.PromptPerM, err = parsePrice(ps); err != nil {
			return nil, fmt.Errorf("price %q: prompt: %w", entry, err)
		}
		if hasC {
			if p.CompletionPerM, err = parsePrice(cs); err != nil {
				return nil, fmt.Errorf("price %q: completion: %w", entry, err)
			}
		}
		out[model] = p
	}
	return out, nil
}

func parsePrice(s string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if !(f >= 0 && f <= 1e9) {
		return 0, fmt.Errorf("%q is out of range [0, 1e9]", s)
	}
	return f, nil
}

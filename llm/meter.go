package llm

import (
	"context"
	"fmt"
	"slices"
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
	// Requests is the number of HTTP requests sent to a server, every
	// attempt counted (first attempts and retries): what the server saw.
	Requests int64 `json:"requests"`
	// Calls is the number of calls answered by a server (retries are not
	// extra calls; cache hits are not calls).
	Calls int64 `json:"calls"`
	// PromptTokens and CompletionTokens are the tokens of those calls, as
	// the server reported them.
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	// ReasoningTokens are the part of CompletionTokens the model spent
	// reasoning, as the server reported them (0 when it does not).
	ReasoningTokens int64 `json:"reasoning_tokens"`
	// CacheHits is the number of calls (for embeddings: texts) answered
	// from the response cache (no request, no cost).
	CacheHits int64 `json:"cache_hits"`
	// CachedTokens are the prompt and completion tokens of the replies the
	// cache served: consumed by the method, neither sent nor paid.
	CachedTokens int64 `json:"cached_tokens"`
	// EmbedTexts is the number of texts sent to an embedding server in
	// Calls embedding calls.
	EmbedTexts int64 `json:"embed_texts"`
	// Retries is the number of extra attempts made after transient failures.
	Retries int64 `json:"retries"`
	// Errors is the number of calls that failed for good (the retry budget
	// spent, a permanent refusal, the caller's deadline).
	Errors int64 `json:"errors"`
	// Parse accounting: Replies is the number of model replies a
	// role parsed; Repaired those that needed the shared normaliser to
	// undo decoration (fences, preambles, bold labels, quotes, a JSON object
	// where a line was asked); Unusable those it could not use at all, and
	// what the role did then: asked the model again (AskedAgain), used its
	// rules instead (FellBack), or went on without the reply (Skipped).
	Replies    int64 `json:"replies,omitempty"`
	Repaired   int64 `json:"repaired,omitempty"`
	Unusable   int64 `json:"unusable,omitempty"`
	AskedAgain int64 `json:"asked_again,omitempty"`
	FellBack   int64 `json:"fell_back,omitempty"`
	Skipped    int64 `json:"skipped,omitempty"`
	// Reasoned counts the replies a role received with reasoning in them
	// (think tags in the content or a separate reasoning field), which
	// was taken out before parsing and never used as the answer.
	Reasoned int64 `json:"reasoned,omitempty"`
	// CostUSD is the estimated cost of the calls at the configured prices;
	// tokens of models without a price count as 0.
	CostUSD float64 `json:"cost_usd"`
}

// SentTokens are the tokens of the calls a server answered, prompt and
// completion: what is paid.
func (s Stats) SentTokens() int64 { return s.PromptTokens + s.CompletionTokens }

// ConsumedTokens are the tokens the method's calls amount to, whoever
// answered them: the tokens sent and those of the replies the response
// cache served (what seed 002 Fig. 8 compares between methods). Embedding
// texts served by the cache carry no token count.
func (s Stats) ConsumedTokens() int64 { return s.SentTokens() + s.CachedTokens }

// FallbackShare is the share of parsed replies a role could not use and
// replaced by its rules or skipped (0 when it parsed none).
func (s Stats) FallbackShare() float64 {
	if s.Replies == 0 {
		return 0
	}
	return float64(s.FellBack+s.Skipped) / float64(s.Replies)
}

func (s *Stats) add(o Stats) {
	s.Replies += o.Replies
	s.Repaired += o.Repaired
	s.Unusable += o.Unusable
	s.AskedAgain += o.AskedAgain
	s.FellBack += o.FellBack
	s.Skipped += o.Skipped
	s.Reasoned += o.Reasoned
	s.ReasoningTokens += o.ReasoningTokens
	s.Requests += o.Requests
	s.CachedTokens += o.CachedTokens
	s.EmbedTexts += o.EmbedTexts
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
	// Served lists the models the replies named (NoteServed), sorted.
	Served []Served `json:"served,omitempty"`
}

// String is a short human-readable summary, one line for the total and one
// per purpose, for the end of a run, in the words every table uses
// (docs/COST.md): requests sent (every attempt), calls answered, cache hits,
// tokens sent (prompt + completion of the answered calls: what is paid),
// tokens consumed (those and the cached replies' tokens), cost.
func (r Report) String() string {
	var b strings.Builder
	line := func(name string, s Stats) {
		fmt.Fprintf(&b, "%-18s %6d requests sent %6d answered %6d cache hits  %9s tokens sent (%s prompt + %s completion) %9s consumed  $%.4f  %d retries %d failures",
			name, s.Requests, s.Calls, s.CacheHits, count(s.SentTokens()), count(s.PromptTokens), count(s.CompletionTokens), count(s.ConsumedTokens()), s.CostUSD, s.Retries, s.Errors)
		if s.ReasoningTokens > 0 {
			fmt.Fprintf(&b, "  (%s reasoning)", count(s.ReasoningTokens))
		}
		if s.EmbedTexts > 0 {
			fmt.Fprintf(&b, "  %d texts embedded", s.EmbedTexts)
		}
		if s.Replies > 0 {
			fmt.Fprintf(&b, "  replies %d: %d repaired, %d unusable (%d asked again, %d fell back, %d skipped; fallback %.0f%%)",
				s.Replies, s.Repaired, s.Unusable, s.AskedAgain, s.FellBack, s.Skipped, 100*s.FallbackShare())
			if s.Reasoned > 0 {
				fmt.Fprintf(&b, ", %d with reasoning taken out", s.Reasoned)
			}
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

// FormatCount formats n with k/M suffixes (1234567 -> "1.23M"), as the
// usage account does.
func FormatCount(n int64) string { return count(n) }

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
	served map[servedKey]int64
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
	s.ReasoningTokens += int64(u.ReasoningTokens)
}

// Hit records a call answered from the response cache with the usage the
// recorded reply had (counted as CachedTokens, not as sent tokens).
func (m *Meter) Hit(purpose, model string, u Usage) {
	if m == nil {
		return
	}
	m.mu.Lock()
	s := m.get(purpose, model)
	s.CacheHits++
	s.CachedTokens += int64(u.PromptTokens) + int64(u.CompletionTokens)
	m.mu.Unlock()
}

// Request records one HTTP request sent (an attempt, first or retry).
func (m *Meter) Request(purpose, model string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.get(purpose, model).Requests++
	m.mu.Unlock()
}

// Texts records n texts sent for embedding.
func (m *Meter) Texts(purpose, model string, n int) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.get(purpose, model).EmbedTexts += int64(n)
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
		if k.model != "" { // parse counts belong to a role, not a model
			bm := r.ByModel[k.model]
			bm.add(st)
			r.ByModel[k.model] = bm
		}
		r.Total.add(st)
	}
	for model := range unpriced {
		r.Unpriced = append(r.Unpriced, model)
	}
	sort.Strings(r.Unpriced)
	r.Served = m.servedList()
	return r
}

// Add returns the sum of two reports (the parts of one evaluation run in
// several processes): every count and cost added by purpose, by model and
// in total, the unpriced models and the served models merged.
func (r Report) Add(o Report) Report {
	out := Report{ByPurpose: map[string]Stats{}, ByModel: map[string]Stats{}, Total: r.Total}
	out.Total.add(o.Total)
	for _, src := range []Report{r, o} {
		for k, s := range src.ByPurpose {
			st := out.ByPurpose[k]
			st.add(s)
			out.ByPurpose[k] = st
		}
		for k, s := range src.ByModel {
			st := out.ByModel[k]
			st.add(s)
			out.ByModel[k] = st
		}
		for _, u := range src.Unpriced {
			if !slices.Contains(out.Unpriced, u) {
				out.Unpriced = append(out.Unpriced, u)
			}
		}
	}
	sort.Strings(out.Unpriced)
	out.Served = MergeServed(r.Served, o.Served)
	return out
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

type meterKey struct{}

// WithMeter returns ctx carrying m: clients (llm/openai, llm/cache) record
// every event of a call made with it in m too, beside their own meter, so
// that one method's account holds its requests, retries, failures, cache
// hits and tokens exactly, while the run's meter holds the sum.
func WithMeter(ctx context.Context, m *Meter) context.Context {
	return context.WithValue(ctx, meterKey{}, m)
}

// MeterFrom is the meter ctx carries, or nil.
func MeterFrom(ctx context.Context) *Meter {
	m, _ := ctx.Value(meterKey{}).(*Meter)
	return m
}

// Meters is a client's own meter and the caller's (from the context); each
// event is recorded once in each distinct one. Nil entries record nothing.
type Meters [2]*Meter

// MetersFor is base and the meter of ctx (once when they are the same).
func MetersFor(ctx context.Context, base *Meter) Meters {
	m := MeterFrom(ctx)
	if m == base {
		m = nil
	}
	return Meters{base, m}
}

// Call records an answered call in every meter.
func (ms Meters) Call(purpose, model string, u Usage) {
	for _, m := range ms {
		m.Call(purpose, model, u)
	}
}

// Hit records a cache hit in every meter.
func (ms Meters) Hit(purpose, model string, u Usage) {
	for _, m := range ms {
		m.Hit(purpose, model, u)
	}
}

// Request records a request sent in every meter.
func (ms Meters) Request(purpose, model string) {
	for _, m := range ms {
		m.Request(purpose, model)
	}
}

// Retry records a retry in every meter.
func (ms Meters) Retry(purpose, model string) {
	for _, m := range ms {
		m.Retry(purpose, model)
	}
}

// Error records a failed call in every meter.
func (ms Meters) Error(purpose, model string) {
	for _, m := range ms {
		m.Error(purpose, model)
	}
}

// Texts records texts sent for embedding in every meter.
func (ms Meters) Texts(purpose, model string, n int) {
	for _, m := range ms {
		m.Texts(purpose, model, n)
	}
}

// Then is what a role did with a reply it could not use.
type Then int

const (
	// AskedAgain: the role asked the model again.
	AskedAgain Then = iota
	// FellBack: the role used its rules (or a default) instead of the reply.
	FellBack
	// Skipped: the role went on without the reply (nothing stored).
	Skipped
)

// Parsed records one model reply that role purpose parsed and used;
// repaired says the shared normaliser had to undo decoration first.
func (m *Meter) Parsed(purpose string, repaired bool) {
	if m == nil {
		return
	}
	m.mu.Lock()
	s := m.get(purpose, "")
	s.Replies++
	if repaired {
		s.Repaired++
	}
	m.mu.Unlock()
}

// Unusable records one model reply that role purpose could not use, and
// what it did then.
func (m *Meter) Unusable(purpose string, then Then) {
	if m == nil {
		return
	}
	m.mu.Lock()
	s := m.get(purpose, "")
	s.Replies++
	s.Unusable++
	switch then {
	case AskedAgain:
		s.AskedAgain++
	case FellBack:
		s.FellBack++
	default:
		s.Skipped++
	}
	m.mu.Unlock()
}

// Reasoning records that a reply to role purpose carried reasoning, which
// was taken out before the role parsed it.
func (m *Meter) Reasoning(purpose string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.get(purpose, "").Reasoned++
	m.mu.Unlock()
}

// NoteReasoning records in the meter of ctx (if any) that a reply to role
// purpose carried reasoning (taken out before parsing).
func NoteReasoning(ctx context.Context, purpose string) {
	MeterFrom(ctx).Reasoning(purpose)
}

// NoteParsed records in the meter of ctx (if any) that role purpose used a
// model reply; repaired says the normaliser had to undo decoration.
func NoteParsed(ctx context.Context, purpose string, repaired bool) {
	MeterFrom(ctx).Parsed(purpose, repaired)
}

// NoteUnusable records in the meter of ctx (if any) that role purpose
// could not use a model reply, and what it did then.
func NoteUnusable(ctx context.Context, purpose string, then Then) {
	MeterFrom(ctx).Unusable(purpose, then)
}

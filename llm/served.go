package llm

import (
	"cmp"
	"slices"
)

// Served is a model as the server that answered named it: the model a
// request asked for, the "model" field of the replies and their
// "system_fingerprint" (the server's configuration; empty where a server
// sends none), with the number of replies that named them. Provenance
// records them: a model alias ("gpt-4o") can move to another snapshot
// between two runs.
type Served struct {
	Requested   string `json:"requested"`
	Model       string `json:"model"`
	Fingerprint string `json:"system_fingerprint,omitempty"`
	Replies     int64  `json:"replies"`
}

type servedKey struct{ requested, model, fingerprint string }

// NoteServed records one reply to a request for model requested that named
// model and fingerprint (also for a reply the response cache served: the
// reply's server named them when it was recorded).
func (m *Meter) NoteServed(requested, model, fingerprint string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	if m.served == nil {
		m.served = map[servedKey]int64{}
	}
	m.served[servedKey{requested, model, fingerprint}]++
	m.mu.Unlock()
}

// NoteServed records a served reply in every meter.
func (ms Meters) NoteServed(requested, model, fingerprint string) {
	for _, m := range ms {
		m.NoteServed(requested, model, fingerprint)
	}
}

// servedList is the meter's served models, sorted; m.mu is held.
func (m *Meter) servedList() []Served {
	var out []Served
	for k, n := range m.served {
		out = append(out, Served{Requested: k.requested, Model: k.model, Fingerprint: k.fingerprint, Replies: n})
	}
	slices.SortFunc(out, compareServed)
	return out
}

func compareServed(a, b Served) int {
	return cmp.Or(cmp.Compare(a.Requested, b.Requested), cmp.Compare(a.Model, b.Model), cmp.Compare(a.Fingerprint, b.Fingerprint))
}

// MergeServed adds the served models of b to a, summing the replies of
// equal entries; the result is sorted.
func MergeServed(a, b []Served) []Served {
	idx := map[servedKey]int{}
	out := slices.Clone(a)
	for i, s := range out {
		idx[servedKey{s.Requested, s.Model, s.Fingerprint}] = i
	}
	for _, s := range b {
		k := servedKey{s.Requested, s.Model, s.Fingerprint}
		if i, ok := idx[k]; ok {
			out[i].Replies += s.Replies
			continue
		}
		idx[k] = len(out)
		out = append(out, s)
	}
	slices.SortFunc(out, compareServed)
	return out
}

package memrl

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
)

// Candidate is one memory recalled by Phase A, with its Phase B values.
type Candidate struct {
	ID, Key int64
	// Sim is its intent key's cosine similarity to the query; ZSim its
	// z-score under the fixed constants; ZQ the z-score of its Q over the
	// candidate pool, clipped to [-3, 3]; Score = (1-lambda)*ZSim +
	// lambda*ZQ.
	Sim, ZSim, Q, ZQ, Score float64
	Visits                  int64
	// Injected is true for the K2 shown to the agent.
	Injected bool
}

// retrieval is the result of one episode's retrieval.
type retrieval struct {
	// Candidates in Phase B's order, the injected ones first.
	Candidates []Candidate
	// MergeKey is the recalled key at similarity >= MergeThreshold (the
	// most similar), -1 for none.
	MergeKey int64
	// Explored is true when an epsilon-greedy draw picked a random subset.
	Explored bool
}

// retrieve runs Phase A and Phase B (Eqs. 5-7) for a query vector over the
// memory as it is; the caller holds m.mu. rng draws the epsilon-greedy
// choice in training (nil: greedy).
func (m *Method) retrieve(query []float32, rng *rand.Rand) retrieval {
	res := retrieval{MergeKey: -1}
	type keySim struct {
		id  int64
		sim float64
	}
	var keys []keySim
	for _, k := range m.intents {
		if s := cosine(query, k.Vector); s >= m.cfg.Delta {
			keys = append(keys, keySim{k.ID, s})
		}
	}
	slices.SortStableFunc(keys, func(a, b keySim) int {
		return cmp.Or(cmp.Compare(b.sim, a.sim), cmp.Compare(a.id, b.id))
	})
	if len(keys) > m.cfg.K1 {
		keys = keys[:m.cfg.K1]
	}
	if len(keys) > 0 && keys[0].sim >= m.cfg.MergeThreshold {
		res.MergeKey = keys[0].id
	}
	simOf := make(map[int64]float64, len(keys))
	for _, k := range keys {
		simOf[k.id] = k.sim
	}
	mean, std := m.simMean, m.simStd
	if std <= 0 {
		mean, std = DefaultSimMean, DefaultSimStd
	}
	var cands []Candidate
	for _, it := range m.items {
		s, ok := simOf[it.Key]
		if !ok || it.Q < m.cfg.QMin {
			continue
		}
		cands = append(cands, Candidate{ID: it.ID, Key: it.Key, Sim: s, ZSim: (s - mean) / std, Q: it.Q, Visits: it.Visits})
	}
	if len(cands) == 0 {
		return res
	}
	zq := zScores(cands)
	lambda := m.cfg.Lambda
	for i := range cands {
		cands[i].ZQ = zq[i]
		cands[i].Score = (1-lambda)*cands[i].ZSim + lambda*zq[i]
	}
	// Ties (memories under one key with equal Q) go to the newer memory.
	slices.SortStableFunc(cands, func(a, b Candidate) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(b.Sim, a.Sim), cmp.Compare(b.ID, a.ID))
	})
	k := min(m.cfg.K2, len(cands))
	if rng != nil && m.cfg.Epsilon > 0 && rng.Float64() < m.cfg.Epsilon {
		res.Explored = true
		perm := rng.Perm(len(cands))[:k]
		slices.Sort(perm)
		chosen := make([]Candidate, 0, len(cands))
		for _, p := range perm {
			chosen = append(chosen, cands[p])
		}
		for i, c := range cands {
			if !slices.Contains(perm, i) {
				chosen = append(chosen, c)
			}
		}
		cands = chosen
	}
	for i := range k {
		cands[i].Injected = true
	}
	res.Candidates = cands
	return res
}

// zScores are the candidates' Q z-scores over the pool: population
// standard deviation, 1 when there is one candidate or the deviation is
// about 0, clipped to [-3, 3] (memory_service.py's normalisation).
func zScores(c []Candidate) []float64 {
	var sum float64
	for _, x := range c {
		sum += x.Q
	}
	mean := sum / float64(len(c))
	var sq float64
	for _, x := range c {
		sq += (x.Q - mean) * (x.Q - mean)
	}
	std := math.Sqrt(sq / float64(len(c)))
	if len(c) == 1 || std < 1e-9 {
		std = 1
	}
	out := make([]float64, len(c))
	for i, x := range c {
		out[i] = max(-3, min(3, (x.Q-mean)/std))
	}
	return out
}

// estimateSimNorm is the mean and population standard deviation of the
// pairwise cosine similarities of the vectors (spec Sec. 7); ok is false
// when there are fewer than two vectors or the deviation is about 0.
func estimateSimNorm(vs [][]float32) (mean, std float64, ok bool) {
	var sims []float64
	for i := range vs {
		for j := i + 1; j < len(vs); j++ {
			sims = append(sims, cosine(vs[i], vs[j]))
		}
	}
	if len(sims) == 0 {
		return 0, 0, false
	}
	for _, s := range sims {
		mean += s
	}
	mean /= float64(len(sims))
	for _, s := range sims {
		std += (s - mean) * (s - mean)
	}
	std = math.Sqrt(std / float64(len(sims)))
	if std < 1e-9 {
		return 0, 0, false
	}
	return mean, std, true
}

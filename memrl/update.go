package memrl

import (
	"context"
	"slices"
)

// EndIteration implements agent.IterationEnder: the batch's end. The
// finished training episodes, in schedule order, first update the Q of the
// memories they were shown (Eq. 8: Q <- (1-alpha)*Q + alpha*r, visits + 1,
// reward_ma likewise), and count a retrieval for every memory Phase A
// recalled; then each is written as a new triplet with Q 0, under the key
// it recalled at similarity >= MergeThreshold or under a new key of its own
// task description. The similarity z-norm constants, when not configured,
// are estimated once from the first batch's task descriptions.
func (m *Method) EndIteration(_ context.Context, _ int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	batch := m.pend
	m.pend = nil
	slices.SortStableFunc(batch, func(a, b pending) int { return a.Episode - b.Episode })
	byID := make(map[int64]int, len(m.items))
	for i, it := range m.items {
		byID[it.ID] = i
	}
	a := m.cfg.Alpha
	for _, p := range batch {
		for _, id := range p.Injected {
			if i, ok := byID[id]; ok {
				it := &m.items[i]
				it.Q = (1-a)*it.Q + a*p.Reward
				it.RewardMA = (1-a)*it.RewardMA + a*p.Reward
				it.LastReward = p.Reward
				it.Visits++
			}
		}
		for _, id := range p.Candidates {
			if i, ok := byID[id]; ok {
				m.items[i].Retrievals++
			}
		}
	}
	if m.simStd <= 0 {
		var vs [][]float32
		seen := map[string]bool{}
		for _, p := range batch {
			if !seen[p.Intent] {
				seen[p.Intent] = true
				vs = append(vs, p.Vector)
			}
		}
		if mean, std, ok := estimateSimNorm(vs); ok {
			m.simMean, m.simStd, m.estimated = mean, std, true
		}
	}
	keyOK := make(map[int64]bool, len(m.intents))
	for _, k := range m.intents {
		keyOK[k.ID] = true
	}
	for _, p := range batch {
		key := p.MergeKey
		if !keyOK[key] {
			key = m.nextIntent
			m.nextIntent++
			m.intents = append(m.intents, Intent{ID: key, Text: p.Intent, Vector: p.Vector})
			keyOK[key] = true
		}
		m.items = append(m.items, Item{
			ID: m.nextItem, Key: key, Task: p.Task, Iteration: p.Iteration, Success: p.Success,
			Lesson: p.Lesson, Trajectory: p.Trajectory, Related: slices.Clone(p.Injected),
		})
		m.nextItem++
	}
	return nil
}

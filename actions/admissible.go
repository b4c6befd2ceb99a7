// Package actions holds the environment-neutral helpers every method uses to
// turn a proposed action into one the environment accepts: matching onto the
// admissible list (exactly, then by embedding similarity). It knows nothing
// of any world's wording, so that every method may use it.
package actions

import (
	"context"
	"fmt"
	"strings"

	"github.com/samem/trainer/llm"
)

// matchThreshold is the least cosine similarity at which a proposed action is
// replaced by the most similar admissible one (CLIN's executor rule, seed 004
// Sec. 3.3, which SAMem's action step follows).
const matchThreshold = 0.9

// MatchAdmissible maps a proposed action onto the admissible list: an exact
// match (ignoring case and surrounding or repeated white space) first, then
// the most similar admissible action by embedding when its cosine similarity
// is at least matchThreshold. ok is false when neither holds; the caller then
// retries with feedback. sim is the similarity of the returned match (1 for an
// exact one). With no admissible list (free-form environments) the action is
// returned as it is.
func MatchAdmissible(ctx context.Context, emb llm.Embedder, action string, admissible []string) (match string, sim float64, ok bool, err error) {
	if admissible == nil {
		return strings.TrimSpace(action), 1, strings.TrimSpace(action) != "", nil
	}
	want := normalizeAction(action)
	if want == "" {
		return "", 0, false, nil
	}
	for _, a := range admissible {
		if normalizeAction(a) == want {
			return a, 1, true, nil
		}
	}
	if emb == nil || len(admissible) == 0 {
		return "", 0, false, nil
	}
	texts := make([]string, 0, len(admissible)+1)
	texts = append(texts, want)
	for _, a := range admissible {
		texts = append(texts, normalizeAction(a))
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		return "", 0, false, fmt.Errorf("embed actions: %w", err)
	}
	if len(vecs) != len(texts) {
		return "", 0, false, fmt.Errorf("embed actions: got %d vectors for %d texts", len(vecs), len(texts))
	}
	best, bestSim := -1, -2.0
	for i := 1; i < len(vecs); i++ {
		if s := dot(vecs[0], vecs[i]); s > bestSim {
			best, bestSim = i-1, s
		}
	}
	if best < 0 || bestSim < matchThreshold {
		return "", bestSim, false, nil
	}
	return admissible[best], bestSim, true, nil
}

func normalizeAction(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.TrimRight(s, ".!")
	return strings.Join(strings.Fields(s), " ")
}

// dot is the cosine similarity of two L2-normalised vectors.
func dot(a, b []float32) float64 {
	if len(a) != len(b) {
		return -2
	}
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return float64(s)
}

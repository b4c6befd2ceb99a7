package arigraph

import (
	"context"
	"hash/fnv"
	"math"
	"strings"
	"sync/atomic"
)

// bowEmbedder is a bag-of-words embedder for tests: each word hashes to one
// of dim coordinates, so texts sharing words are similar and texts sharing
// none are orthogonal (barring hash collisions, which the tests avoid with a
// large dim).
type bowEmbedder struct {
	dim   int
	calls atomic.Int64
}

func (b *bowEmbedder) Model() string { return "bow-test" }
func (b *bowEmbedder) Dim() int      { return b.dim }
func (b *bowEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	b.calls.Add(1)
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, b.dim)
		for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
		}) {
			h := fnv.New32a()
			h.Write([]byte(w))
			v[int(h.Sum32())%b.dim]++
		}
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if n > 0 {
			for j := range v {
				v[j] /= float32(math.Sqrt(n))
			}
		}
		out[i] = v
	}
	return out, nil
}

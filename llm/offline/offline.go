// Package offline is an llm.Embedder that needs no server: feature hashing
// of words and character n-grams. The default training run uses it to
// cluster states and thoughts (cosine threshold 0.85), and tests use it
// wherever real embeddings do not matter.
//
// # Features and weights
//
// The text is lower-cased (Unicode-aware) and split into words: maximal runs
// of ASCII letters and digits and of non-ASCII bytes (so UTF-8 letters stay
// inside words); everything else (spaces, punctuation) separates words.
// Each word w contributes:
//
//   - the word itself, weight WordWeight (1.0);
//   - every byte 3-gram of "^w$" (the word between boundary marks, so a
//     word of n bytes has n 3-grams), weight NGramWeight (0.25) each.
//
// Each feature is hashed (64-bit FNV-1a, with a different prefix for words
// and n-grams) to one of Dim coordinates and a sign (+1 or -1, from the top
// bit), the signed weights are summed, and the sum is L2-normalised. A text
// with no words maps to the first unit vector.
//
// # How similarity behaves
//
// The vector is deterministic: identical texts give identical vectors, on
// any machine, and case and punctuation do not matter ("Open the door!" and
// "open the door" are identical). Cosine similarity is roughly the weighted
// share of features two texts have in common: texts that share most words
// score high (one word changed in a 23-word observation scores about 0.98,
// well above the 0.85 clustering threshold, while "open the door" and
// "open the window" score about 0.70, below it), texts with no word in common score
// near 0 (hash collisions add noise of about ±1/sqrt(Dim)), and the n-grams
// give partial credit to words with a common stem ("door" and "doors"). Word
// order does not matter. It knows no synonyms: "grab the lamp" and "take the
// lantern" are far apart.
package offline

import (
	"context"
	"math"
	"strings"
	"unicode/utf8"
)

// Defaults and weights; see the package comment.
const (
	// DefaultDim is the vector dimension when New is given 0.
	DefaultDim = 1024
	// WordWeight is the weight of each word feature.
	WordWeight = 1.0
	// NGramWeight is the weight of each character 3-gram feature.
	NGramWeight = 0.25
	// Model is the name Model reports; it changes whenever the features,
	// weights or hash change, so checkpoints never mix versions.
	Model = "offline-hash-v1"
)

// FNV-1a 64-bit parameters.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// Embedder is the hashing embedder. It has no mutable state and is safe for
// concurrent use.
type Embedder struct {
	dim int
}

// New returns an Embedder of dimension dim (DefaultDim when dim <= 0).
func New(dim int) *Embedder {
	if dim <= 0 {
		dim = DefaultDim
	}
	return &Embedder{dim: dim}
}

// Model is "offline-hash-v1".
func (e *Embedder) Model() string { return Model }

// Dim is the vector dimension.
func (e *Embedder) Dim() int { return e.dim }

// Embed returns one L2-normalised vector per text. It never fails except
// when ctx is already done. The vectors share one backing array.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	backing := make([]float32, len(texts)*e.dim)
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = backing[i*e.dim : (i+1)*e.dim : (i+1)*e.dim]
		e.EmbedTo(out[i], t)
	}
	return out, nil
}

// EmbedTo writes the vector of text into dst, which must have length Dim()
// (EmbedTo does nothing otherwise). It does not allocate for ASCII text.
func (e *Embedder) EmbedTo(dst []float32, text string) {
	if len(dst) != e.dim {
		return
	}
	clear(dst)
	if !isASCII(text) {
		text = strings.ToLower(text)
	}
	// word holds "^w$": the current lower-cased word between boundary marks.
	var buf [64]byte
	word := append(buf[:0], '^')
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case 'A' <= c && c <= 'Z':
			word = append(word, c+'a'-'A')
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c >= utf8.RuneSelf:
			word = append(word, c)
		default:
			if len(word) > 1 {
				e.addWord(dst, append(word, '$'))
				word = word[:1]
			}
		}
	}
	if len(word) > 1 {
		e.addWord(dst, append(word, '$'))
	}
	normalize(dst)
}

// addWord adds the features of one lower-cased word given as "^w$".
func (e *Embedder) addWord(dst []float32, p []byte) {
	// Word feature: prefix byte 'w', the bytes of w without the marks.
	h := uint64(fnvOffset)
	h = (h ^ 'w') * fnvPrime
	for _, c := range p[1 : len(p)-1] {
		h = (h ^ uint64(c)) * fnvPrime
	}
	e.add(dst, h, WordWeight)
	// 3-grams of "^w$": prefix byte 'g'.
	g := uint64(fnvOffset)
	g = (g ^ 'g') * fnvPrime
	for i := 0; i+3 <= len(p); i++ {
		h := (g ^ uint64(p[i])) * fnvPrime
		h = (h ^ uint64(p[i+1])) * fnvPrime
		h = (h ^ uint64(p[i+2])) * fnvPrime
		e.add(dst, h, NGramWeight)
	}
}

// add adds weight with the sign of h's top bit at the coordinate picked by
// h's low 32 bits (Lemire's multiply-shift range reduction).
func (e *Embedder) add(dst []float32, h uint64, weight float32) {
	idx := (h & 0xffffffff) * uint64(e.dim) >> 32
	if h>>63 == 1 {
		weight = -weight
	}
	dst[idx] += weight
}

func normalize(v []float32) {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	if ss == 0 {
		v[0] = 1
		return
	}
	inv := float32(1 / math.Sqrt(ss))
	for i := range v {
		v[i] *= inv
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

package actions

import (
	"context"
	"strings"
	"testing"
)

var adm = []string{"go to countertop 1", "go to fridge 1", "inventory", "look", "take apple 1 from countertop 1"}

// wordEmbedder embeds a text as a bag of its words (tests only).
type wordEmbedder struct{}

func (wordEmbedder) Model() string { return "test-words" }
func (wordEmbedder) Dim() int      { return 64 }
func (wordEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 64)
		var n float32
		for _, w := range strings.Fields(t) {
			h := 0
			for _, c := range w {
				h = (h*31 + int(c)) % 64
			}
			v[h]++
			n++
		}
		var norm float32
		for _, x := range v {
			norm += x * x
		}
		if norm > 0 {
			for j := range v {
				v[j] /= float32(sqrt(float64(norm)))
			}
		}
		out[i] = v
	}
	return out, nil
}

func sqrt(x float64) float64 {
	z := x
	for i := 0; i < 30; i++ {
		z -= (z*z - x) / (2 * z)
	}
	return z
}

func TestMatchAdmissible(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		act, want string
		ok        bool
	}{
		{"look", "look", true},
		{"  LOOK. ", "look", true},
		{"go to countertop 1 now", "", false},
		{"take apple 1 from countertop 1 1", "take apple 1 from countertop 1", true}, // same bag of words but one
		{"", "", false},
	} {
		got, _, ok, err := MatchAdmissible(ctx, wordEmbedder{}, tc.act, adm)
		if err != nil || ok != tc.ok || got != tc.want {
			t.Errorf("MatchAdmissible(%q) = %q, %v, %v; want %q, %v", tc.act, got, ok, err, tc.want, tc.ok)
		}
	}
	if got, _, ok, _ := MatchAdmissible(ctx, nil, " open door ", nil); !ok || got != "open door" {
		t.Errorf("free-form MatchAdmissible = %q, %v", got, ok)
	}
}

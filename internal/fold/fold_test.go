package fold

import (
	"strings"
	"testing"
)

func TestIndex(t *testing.T) {
	for _, tc := range []struct {
		s, sub string
		want   int
	}{
		{"Thought: x", "thought:", 0},
		{"\xb8ACtion: go", "action:", 1},
		{"İİ (:GOAL (x))", "(:goal", 5},
		{"nothing", "goal", -1},
	} {
		if got := Index(tc.s, tc.sub); got != tc.want {
			t.Errorf("Index(%q, %q) = %d, want %d", tc.s, tc.sub, got, tc.want)
		}
	}
}

func FuzzIndex(f *testing.F) {
	f.Add("İ(:goal", "(:goal")
	f.Fuzz(func(t *testing.T, s, sub string) {
		sub = strings.ToLower(sub)
		i := Index(s, sub)
		if i >= 0 && (i+len(sub) > len(s) || Lower(s[i:i+len(sub)]) != sub) {
			t.Fatalf("Index(%q, %q) = %d: not a match", s, sub, i)
		}
	})
}

package cluster

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestOrderKey checks that sorting packed keys orders lists by bound
// descending, then index, and that a key's bound is never below the bound
// it packs (lists are skipped by comparing it with the bar).
func TestOrderKey(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	ubs := []float64{1, 0.999999999, 0.85, 0.85, 0.5, 1e-30, 0, math.Copysign(0, -1), -1e-30, -0.3, -0.85, -1}
	for range 200 {
		ubs = append(ubs, 2*rng.Float64()-1)
	}
	keys := make([]uint64, len(ubs))
	for i, ub := range ubs {
		keys[i] = orderKey(ub, i)
		got, list := unKey(keys[i])
		if got < ub || int(list) != i {
			t.Fatalf("unKey(orderKey(%v, %d)) = %v, %d", ub, i, got, list)
		}
		if got-ub > 1e-7 {
			t.Fatalf("bound %v widened to %v", ub, got)
		}
	}
	slices.Sort(keys)
	for j := 1; j < len(keys); j++ {
		u0, l0 := unKey(keys[j-1])
		u1, l1 := unKey(keys[j])
		if u0 < u1 || (u0 == u1 && l0 > l1) {
			t.Fatalf("key %d (%v, list %d) sorted before (%v, list %d)", j, u0, l0, u1, l1)
		}
	}
}

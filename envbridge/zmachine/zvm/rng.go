package zvm

// rng is the random generator of §2.4, made to give the same numbers as
// Frotz (and so dfrotz -s SEED, with which the suite's walkthroughs were
// recorded): a linear congruential generator in standard mode, a counter
// 0..S-1 in predictable mode after random(-S) with S < 1000.
type rng struct {
	seedValue int64 // Options.Seed: what random(0) re-seeds from (no wall clock)
	a         int64
	interval  int
	counter   int
}

func (r *rng) seed(v int64) {
	r.seedValue = v
	r.a, r.interval, r.counter = v, 0, 0
}

// reseed is random(-n) (n > 0) or random(0) (n == 0) (§2.4.1).
func (r *rng) reseed(n int) {
	switch {
	case n == 0:
		r.a, r.interval = r.seedValue, 0
	case n < 1000:
		r.counter, r.interval = 0, n
	default:
		r.a, r.interval = int64(n), 0
	}
}

// next returns a number in 1..n (n > 0).
func (r *rng) next(n int) int {
	var v int
	if r.interval != 0 {
		v = r.counter
		r.counter++
		if r.counter == r.interval {
			r.counter = 0
		}
	} else {
		r.a = 0x015a4e35*r.a + 1
		v = int((r.a >> 16) & 0x7fff)
	}
	return v%n + 1
}

package zvm

import (
	"math/rand/v2"
	"testing"
)

// TestFindPropMatchesChecked: findProp's direct walk gives what the
// checked walk (findPropFrom, every read through propInfo) gives, for
// every object and property number of a library game, and again after the
// property bytes of each object are overwritten with random bytes (the
// end of memory included: a table moved to the last bytes).
func TestFindPropMatchesChecked(t *testing.T) {
	m := loadSmall(t, Options{})
	r := rand.New(rand.NewPCG(1, 2))
	check := func(what string) {
		t.Helper()
		for o := 1; o <= m.NumObjects(); o++ {
			for n := 0; n < 64; n++ {
				m.err, m.stop = nil, false
				d, l := m.findProp(o, n)
				m.err, m.stop = nil, false
				a := m.firstProp(o)
				wd, wl := m.findPropFrom(a, n, 0)
				if d != wd || l != wl {
					t.Fatalf("%s: object %d property %d: findProp %d,%d, the checked walk %d,%d", what, o, n, d, l, wd, wl)
				}
			}
		}
	}
	check("as compiled")
	for round := range 20 {
		for o := 1; o <= m.NumObjects(); o++ {
			a := m.firstProp(o)
			for i := 0; i < 24 && a+i < m.dyn; i++ {
				m.mem[a+i] = byte(r.IntN(256))
			}
		}
		check("random property bytes")
		if round == 19 {
			// the last object's table at the end of memory
			o := m.NumObjects()
			p := len(m.mem) - 3
			ta := m.objAddr(o) + m.objSize - 2
			m.mem[ta], m.mem[ta+1] = byte(p>>8), byte(p)
			m.mem[p], m.mem[p+1], m.mem[p+2] = 0, 0xc5, 0x80
			check("a table at the end of memory")
		}
	}
}

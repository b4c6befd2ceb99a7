package zvm

import (
	"path/filepath"
	"sync"
	"testing"
)

// TestClone: a clone taken in mid-game plays the rest of the walkthrough
// exactly as the original does, both running at the same time (the race
// detector checks that they share nothing they write).
func TestClone(t *testing.T) {
	dir, games := jerichoGames(t)
	g := games["zork1.z5"]
	m, err := Load(readStory(t, filepath.Join(dir, "zork1.z5")), Options{Seed: g.Seed})
	if err != nil {
		t.Fatal(err)
	}
	play(t, m, g.Walkthrough[:30])
	c := m.Clone()
	if c.WorldHash() != m.WorldHash() {
		t.Fatal("the clone's world differs from the original's")
	}
	rest := g.Walkthrough[30:]
	var outs [2]string
	var wg sync.WaitGroup
	for i, x := range []*Machine{m, c} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], _ = play(t, x, rest)
		}()
	}
	wg.Wait()
	if len(outs[0]) < 1000 || outs[0] != outs[1] {
		t.Errorf("the clone's transcript (%d bytes) differs from the original's (%d bytes)", len(outs[1]), len(outs[0]))
	}
	if m.WorldHash() != c.WorldHash() {
		t.Error("final worlds differ")
	}
}

// TestProperty reads a property and a packed string through the API.
func TestPropertyAndPackedString(t *testing.T) {
	dir, games := jerichoGames(t)
	m, err := Load(readStory(t, filepath.Join(dir, "zork1.z5")), Options{Seed: games["zork1.z5"].Seed})
	if err != nil {
		t.Fatal(err)
	}
	if m.Property(0, 1) != nil || m.Property(1, 0) != nil || m.Property(m.NumObjects()+1, 1) != nil {
		t.Error("Property out of range is not nil")
	}
	found := false
	for id := 1; id <= m.NumObjects() && !found; id++ {
		for n := 1; n <= 63 && !found; n++ {
			if d := m.Property(id, n); len(d) == 2 {
				if s, err := m.PackedString(uint16(d[0])<<8 | uint16(d[1])); err == nil && len(s) > 20 {
					found = true
				}
			}
		}
	}
	if !found {
		t.Error("no object of zork1 has a two-byte property holding a readable string (its descriptions)")
	}
	if _, err := m.PackedString(0); err == nil {
		t.Error("PackedString(0) (the header) decoded")
	}
}

package zvm

import (
	"strings"
	"testing"
)

// FuzzLoad loads mutated story files (testdata/mini.inf for versions 3,\n// 5 and 8) and runs what loads with a small
// budget: Load and Run must return errors, never panic (a panic caught at
// Run's boundary reads "internal error" and fails the target) or hang.
func FuzzLoad(f *testing.F) {
	for _, v := range []int{3, 5, 8} {
		good := compile(f, "mini", v)
		f.Add(good)
		f.Add(good[:64])
		b := append([]byte(nil), good...)
		b[0x06], b[0x07] = 0x0f, 0xf0 // initial PC elsewhere
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, story []byte) {
		m, err := Load(story, Options{Budget: 20_000})
		if err != nil {
			return
		}
		for i := 0; i < 3; i++ {
			w, err := m.Run()
			if err != nil {
				if strings.Contains(err.Error(), "internal error") {
					t.Fatalf("panic inside Run: %v", err)
				}
				return
			}
			switch w {
			case Halted:
				return
			case WaitKey:
				m.Key(13)
			case WaitLine:
				m.Input("look")
			}
			m.Output()
			m.WorldHash()
		}
	})
}

// FuzzInput plays random input lines and keys on the small game from a
// snapshot of its first prompt.
func FuzzInput(f *testing.F) {
	m, err := Load(small(f), Options{Budget: 300_000})
	if err != nil {
		f.Fatal(err)
	}
	if _, err := m.Run(); err != nil {
		f.Fatal(err)
	}
	start := m.Snapshot()
	for _, s := range []string{"take coin\nn\npush button", "waitkey\nx", "draw\nspin\nstore", "loop", "bad", "save\nrestore\nundo", "\x00\xff\n,,,.", "restart\ny"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		m.Restore(start)
		for _, line := range strings.Split(script, "\n") {
			w, err := m.Run()
			m.Output()
			if err != nil {
				if strings.Contains(err.Error(), "internal error") {
					t.Fatalf("panic inside Run: %v", err)
				}
				return
			}
			switch w {
			case Halted:
				return
			case WaitKey:
				k := uint16(13)
				if line != "" {
					k = uint16(line[0])
				}
				err = m.Key(k)
			case WaitLine:
				err = m.Input(line)
			}
			if err != nil && strings.Contains(err.Error(), "internal error") {
				t.Fatal(err)
			}
		}
	})
}

// FuzzRestoreQuetzal restores mutated Quetzal files into the small game:
// RestoreQuetzal returns an error or a machine that runs (errors allowed,
// panics not); a failed restore leaves the machine as it was.
func FuzzRestoreQuetzal(f *testing.F) {
	m, err := Load(small(f), Options{Budget: 100_000})
	if err != nil {
		f.Fatal(err)
	}
	if _, err := m.Run(); err != nil {
		f.Fatal(err)
	}
	start := m.Snapshot()
	q0, err := m.SaveQuetzal()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(q0)
	m.Input("take coin")
	m.Run()
	q1, err := m.SaveQuetzal()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(q1)
	f.Add([]byte("FORM\x00\x00\x00\x04IFZS"))
	f.Fuzz(func(t *testing.T, q []byte) {
		m.Restore(start)
		h := m.WorldHash()
		if err := m.RestoreQuetzal(q); err != nil {
			if strings.Contains(err.Error(), "internal error") {
				t.Fatal(err)
			}
			if m.WorldHash() != h {
				t.Fatalf("a failed RestoreQuetzal (%v) changed the world", err)
			}
			return
		}
		m.Output()
		if err := m.Input("look"); err != nil {
			return
		}
		if _, err := m.Run(); err != nil && strings.Contains(err.Error(), "internal error") {
			t.Fatal(err)
		}
	})
}

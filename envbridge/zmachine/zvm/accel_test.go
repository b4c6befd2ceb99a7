package zvm

import "testing"

// TestAccelMatchesRoutine calls each accelerated routine, compiled as
// Inform compiles it, with many arguments: natively (through the cache)
// and run instruction by instruction (step); the results and the
// instructions counted must agree, and the cached call must be the native
// one.
func TestAccelMatchesRoutine(t *testing.T) {
	vals := []uint16{0, 1, 2, 5, 0x7ffe, 0x7fff, 0x8000, 0x8001, 0xfff0, 0xffff}
	for _, c := range []struct {
		name  string
		code  []byte
		kind  uint8
		nargs int
	}{
		{"Unsigned__Compare", ucmpCode, accelUcmp, 2},
		{"word read", wordCode, accelWord, 2},
		{"Unsigned__Compare, one argument", ucmpCode, accelUcmp, 1},
		{"RT__ChLDB", chldbStory(), accelChLDB, 2},
	} {
		for _, x := range vals {
			for _, y := range vals {
				if c.kind == accelWord {
					x, y = 0x100+x%0x40, y%0x20 // a table in memory
				}
				story := accelStory(c.code, x, y, c.nargs)
				var got [2]uint16
				var ex [2]uint64
				for i, noCache := range []bool{false, true} {
					m, err := Load(story, Options{})
					if err != nil {
						t.Fatal(err)
					}
					m.noCache = noCache
					if w, err := m.Run(); err != nil || w != Halted {
						t.Fatalf("%s(%#x, %#x): %v %v", c.name, x, y, w, err)
					}
					got[i], ex[i] = m.Global(0), m.executed
					if !noCache && m.insts[m.icache[0x500-m.dyn]].br != c.kind {
						t.Fatalf("%s: the call was not accelerated", c.name)
					}
				}
				if got[0] != got[1] || ex[0] != ex[1] {
					t.Errorf("%s(%#x, %#x): native %#x in %d instructions, routine %#x in %d", c.name, x, y, got[0], ex[0], got[1], ex[1])
				}
			}
		}
	}
}

// accelStory is a version 5 story whose main code (at 0x500, static
// memory) calls the routine code (at 0x600) with x and y (or x alone),
// stores the result in global 0 and quits; 0x100-0x180 holds a table of
// distinct words.
func accelStory(code []byte, x, y uint16, nargs int) []byte {
	story := make([]byte, 0x800)
	story[0] = 5
	put := func(a, v int) { story[a], story[a+1] = byte(v>>8), byte(v) }
	put(0x04, 0x400)
	put(0x06, 0x500)
	put(0x08, 0x400)
	put(0x0a, 0x220)
	put(0x0c, 0x40)
	put(0x0e, 0x400)
	put(0x18, 0x404)
	copy(story[0x400:], []byte{0, 7, 0, 0})
	for a := 0x100; a < 0x180; a += 2 {
		put(a, a*37)
	}
	if nargs == 2 {
		copy(story[0x500:], []byte{0xe0, 0x03, 0x01, 0x80, byte(x >> 8), byte(x), byte(y >> 8), byte(y), 0x10, 0xba})
	} else {
		copy(story[0x500:], []byte{0xe0, 0x0f, 0x01, 0x80, byte(x >> 8), byte(x), 0x10, 0xba})
	}
	copy(story[0x600:], code)
	return story
}

// chldbStory is RT__ChLDB as Inform compiles it (chldbCode) with a bound of
// 0x180, Unsigned__Compare at 0x640 (packed 0x190) and a RunTimeError
// routine at 0x680 (packed 0x1a0) that returns 0, all after it at 0x600.
func chldbStory() []byte {
	code := make([]byte, 0x100)
	for i, p := range chldbCode {
		code[i] = byte(p)
	}
	code[7], code[8] = 0x01, 0x90
	code[10], code[11] = 0x01, 0x80
	code[19], code[20], code[21] = 0x01, 0xa0, 24
	copy(code[0x40:], ucmpCode)
	copy(code[0x80:], []byte{0x00, 0xb1}) // rfalse
	return code
}

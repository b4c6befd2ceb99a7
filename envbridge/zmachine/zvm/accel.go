package zvm

import "bytes"

// Accelerated routines. Inform's compilers put the same small routines in
// every game: the veneer's Unsigned__Compare and RT__ChLDB (the bounds-
// checked a->i), and Inform 7's word-array read (return a-->i). An Inform
// 7 turn calls them hundreds of thousands of times (cook.z8: half of all
// calls, 18% of all instructions), so a call to a routine whose bytes are
// exactly one of these is answered natively, as Glulx interpreters do for
// Inform 7's @accelfunc routines. The match is on the routine's whole code
// (RT__ChLDB's per-game bound and routine addresses excepted), in static
// or high memory (which the game cannot change), for versions 5 and later
// (where locals start at 0); the result, the stored value and the
// instructions counted are those the routine would give when run
// (TestAccelMatchesRoutine on 100 argument pairs each, TestCacheMatchesStep
// on every walkthrough), and anything the native answer cannot give
// exactly (a word outside memory, RT__ChLDB's error path, a call stack
// near its limits) runs the routine.

const (
	accelUnknown = iota // not looked at yet
	accelNone           // an ordinary routine
	accelUcmp           // Unsigned__Compare(x, y): 0, 1 or -1
	accelWord           // return x-->y
	accelChLDB          // x->y with Inform's bounds check (RT__ChLDB)
)

// ucmpCode is Unsigned__Compare as Inform 6 compiles it (4 locals):
//
//	je x y ?rfalse; jl x 0 ?L1; jl y 0 ?L0; jg x y ?rtrue; ret -1;
//	.L0; ret -1; .L1; jl y 0 ?~rtrue; jg x y ?rtrue; ret -1
var ucmpCode = []byte{0x04, 0x61, 0x01, 0x02, 0xc0, 0x42, 0x01, 0x00, 0xd0, 0x42, 0x02, 0x00, 0xc9,
	0x63, 0x01, 0x02, 0xc1, 0x8b, 0xff, 0xff, 0x8b, 0xff, 0xff, 0x42, 0x02, 0x00, 0x41, 0x63, 0x01,
	0x02, 0xc1, 0x8b, 0xff, 0xff}

// wordCode is a routine of 2 locals: loadw x y -> sp; ret_popped... as
// Inform compiles "return x-->y": loadw x y -> sp; ret sp.
var wordCode = []byte{0x02, 0x6f, 0x01, 0x02, 0x00, 0xab, 0x00}

// chldbCode is Inform's RT__ChLDB(x, y), the checked x->y (4 locals), with
// wildcards (-1) for what differs between games: the packed address of
// Unsigned__Compare (offsets 7-8), the bound (10-11) and the run-time
// error routine and its argument (19-22):
//
//	add x y -> L3; call_vs Unsigned__Compare L3 bound -> sp; jl sp 0 ?L;
//	call_2s RunTimeError n -> sp; ret_popped; .L; loadb x y -> L4; ret L4
var chldbCode = []int16{0x04, 0x74, 0x01, 0x02, 0x03, 0xe0, 0x23, -1, -1, 0x03, -1, -1, 0x00,
	0x42, 0x00, 0x00, 0xc9, 0xd9, 0x1f, -1, -1, -1, 0x00, 0xb8, 0x70, 0x01, 0x02, 0x04, 0xab, 0x04}

// matches reports whether code begins with pat (-1 matches any byte).
func matches(code []byte, pat []int16) bool {
	if len(code) < len(pat) {
		return false
	}
	for i, p := range pat {
		if p >= 0 && code[i] != byte(p) {
			return false
		}
	}
	return true
}

// accelOf classifies the routine at packed address p.
func (m *Machine) accelOf(p uint16) uint8 {
	a := m.unpack(p, packedRoutine)
	if m.version < 5 || a < m.dyn || a >= len(m.mem) {
		return accelNone
	}
	code := m.mem[a:]
	switch {
	case bytes.HasPrefix(code, ucmpCode):
		return accelUcmp
	case bytes.HasPrefix(code, wordCode):
		return accelWord
	case matches(code, chldbCode) && m.accelOf(uint16(code[7])<<8|uint16(code[8])) == accelUcmp:
		return accelChLDB
	}
	return accelNone
}

// accel answers a call of the accelerated routine at packed address p
// with n operands (the routine and its arguments x, y; missing ones are 0,
// as the locals start): the value it returns, the instructions it would
// execute (those of the routines it calls included), and ok; not ok when
// the routine must run (the caller then calls it).
func (m *Machine) accel(kind uint8, p uint16, n uint8, x, y uint16) (uint16, int, bool) {
	if n < 2 {
		x = 0
	}
	if n < 3 {
		y = 0
	}
	if len(m.frames) >= 4090 || len(m.stack)+64 >= maxStack {
		return 0, 0, false // the call itself could fault: run it
	}
	switch kind {
	case accelUcmp:
		// the path through ucmpCode, counting its instructions
		sx, sy := int16(x), int16(y)
		switch {
		case x == y:
			return 0, 1, true
		case sx >= 0 && sy < 0:
			return 0xffff, 4, true
		case sx >= 0 && sx > sy:
			return 1, 4, true
		case sx >= 0:
			return 0xffff, 5, true
		case sy >= 0:
			return 1, 3, true
		case sx > sy:
			return 1, 4, true
		default:
			return 0xffff, 5, true
		}
	case accelChLDB:
		// the routine's code was matched: its bound is in it
		code := m.mem[m.unpack(p, packedRoutine):]
		bound := uint16(code[10])<<8 | uint16(code[11])
		a := x + y
		if a >= bound || int(a) >= len(m.mem) {
			return 0, 0, false // the run-time error path: run it
		}
		_, ucnt, _ := m.accel(accelUcmp, 0, 3, a, bound)
		// add, call_vs, (Unsigned__Compare), jl, loadb, ret
		return uint16(m.mem[a]), 5 + ucnt, true
	case accelWord:
		a := int(uint16(x + 2*y))
		if a+1 >= len(m.mem) {
			return 0, 0, false // the routine's loadw faults: run it
		}
		return uint16(m.mem[a])<<8 | uint16(m.mem[a+1]), 2, true
	}
	return 0, 0, false
}

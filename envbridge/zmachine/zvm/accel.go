package zvm

import "bytes"

// Accelerated routines. Inform's compilers put the same small routines in
// every game: the veneer's Unsigned__Compare, and Inform 7's word-array
// read (return a-->i). An Inform 7 turn calls them hundreds of thousands
// of times (cook.z8: 40% of all calls, 13% of all instructions), so a call
// to a routine whose bytes are exactly one of these is answered natively,
// as Glulx interpreters do for Inform 7's @accelfunc routines. The match
// is on the routine's whole code, in static or high memory (which the game
// cannot change), for versions 5 and later (where locals start at 0);
// the result, the stored value and the instructions counted are those the
// routine would give when run (TestCacheMatchesStep compares both ways on
// every walkthrough), and anything the native answer cannot give exactly
// (a word outside memory, a call stack near its limits) runs the routine.

const (
	accelUnknown = iota // not looked at yet
	accelNone           // an ordinary routine
	accelUcmp           // Unsigned__Compare(x, y): 0, 1 or -1
	accelWord           // return x-->y
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
	}
	return accelNone
}

// accel answers a call of an accelerated routine with n operands (the
// routine and its arguments x, y; missing ones are 0, as the locals
// start): the value it returns, the instructions it would execute, and ok;
// not ok when the routine must run (the caller then calls it).
func (m *Machine) accel(kind, n uint8, x, y uint16) (uint16, int, bool) {
	if n < 2 {
		x = 0
	}
	if n < 3 {
		y = 0
	}
	if len(m.frames) >= 4095 || len(m.stack)+16 >= maxStack {
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
	case accelWord:
		a := int(uint16(x + 2*y))
		if a+1 >= len(m.mem) {
			return 0, 0, false // the routine's loadw faults: run it
		}
		return uint16(m.mem[a])<<8 | uint16(m.mem[a+1]), 2, true
	}
	return 0, 0, false
}

package zvm

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// codeRoom is the padding appended to a test story; plantAt puts an
// instruction at its start, in high memory, where the instruction cache
// decodes it.
const codeRoom = 96

// planted loads story with code appended (in high memory, past the
// story's own bytes) and returns the machine and the code's address.
func planted(t testing.TB, story, code []byte) (*Machine, int) {
	t.Helper()
	at := (len(story) + 7) &^ 7
	s := make([]byte, at+codeRoom)
	copy(s, story)
	copy(s[at:], code[:min(len(code), maxInstLen)])
	m, err := Load(s, Options{Budget: 1000})
	if err != nil {
		t.Fatal(err)
	}
	return m, at
}

// randomState gives m one to three frames above the main routine's, with
// random locals, argument counts, store variables and evaluation stacks,
// and random globals; every frame returns to ret. Values are mostly small
// (object numbers, variable numbers) and sometimes any word.
func randomState(m *Machine, r *rand.Rand, ret int) {
	word := func() uint16 {
		if r.IntN(4) == 0 {
			return uint16(r.Uint32())
		}
		return uint16(r.IntN(24))
	}
	for g := 16; g < 256; g++ {
		m.setGlobal(g, word())
	}
	m.frames = m.frames[:1]
	m.stack = m.stack[:m.frames[0].base+m.frames[0].nLocals]
	for d := 1 + r.IntN(3); d > 0; d-- {
		n := r.IntN(16)
		f := frame{retPC: ret, store: r.IntN(257) - 1, base: len(m.stack), nLocals: n, nArgs: r.IntN(n + 1)}
		for i := 0; i < n; i++ {
			m.stack = append(m.stack, word())
		}
		m.frames = append(m.frames, f)
		for i := r.IntN(6); i > 0; i-- {
			m.stack = append(m.stack, word())
		}
	}
	m.syncFrame()
}

// seedCode encodes opcode d with operands of mixed types, followed by
// bytes that serve as its store variable, branch data or string.
func seedCode(d *opcode) []byte {
	var b []byte
	switch d.count {
	case op2:
		b = []byte{0x40 | d.num, 0x01, 0x03} // a variable and a constant
	case op1:
		b = []byte{0x90 | d.num, 0x02}
	case op0:
		b = []byte{0xb0 | d.num}
	case opV:
		b = []byte{0xe0 | d.num, 0x5b, 0x03, 0x00, 0x01} // small, var, small
	case opE:
		b = []byte{0xbe, d.num, 0x5f, 0x02, 0x01} // small, var
	}
	return append(b, 0x10, 0xc5, 0x94, 0xa5, 0x00, 0x05)
}

// FuzzOpcodePaths runs one instruction, on the same random state, through
// the instruction cache (the inline fast kinds, or the table for the rest)
// and through the generic path (step: decoded afresh, dispatched through
// the table), and requires the same memory, stack, frames, PC, output,
// waiting state and error. The seeds are every row of the opcode table.
func FuzzOpcodePaths(f *testing.F) {
	stories := map[bool][]byte{false: compile(f, "mini", 3), true: compile(f, "mini", 5)}
	for i := range opcodes {
		d := &opcodes[i]
		f.Add(d.maxV >= 5, seedCode(d), uint64(i))
		f.Add(d.minV <= 3, seedCode(d), uint64(i)+1000)
	}
	f.Fuzz(func(t *testing.T, v5 bool, code []byte, seed uint64) {
		var ms [2]*Machine
		at := 0
		for i := range ms {
			ms[i], at = planted(t, stories[v5], code)
			randomState(ms[i], rand.New(rand.NewPCG(seed, 0x5eed)), at)
			ms[i].pc = at
		}
		ms[1].noCache = true
		// A call to one of the routines the fast path runs natively
		// (accel.go) is compared with the routine by TestAccelMatchesRoutine.
		if in, err := ms[0].Disassemble(at); err == nil && strings.HasPrefix(in.Name, "call") && len(in.Operands) > 0 && in.Operands[0][0] == '#' {
			var p uint16
			fmt.Sscanf(in.Operands[0], "#0x%x", &p)
			if ms[0].accelOf(p) != accelNone {
				return
			}
		}
		var errs [2]string
		var outs [2]Output
		for i, m := range ms {
			errs[i] = runOne(m)
			outs[i] = m.Output()
		}
		a, b := ms[0], ms[1]
		what := func() string {
			in, _ := a.Disassemble(at)
			return fmt.Sprintf("v%d %v (% x)", a.version, in, code[:min(len(code), 12)])
		}
		switch {
		case errs[0] != errs[1]:
			t.Fatalf("%s: error: cache %q, generic %q", what(), errs[0], errs[1])
		case errs[0] != "":
			return // both stopped at the same fault; the state after it is unspecified
		case a.pc != b.pc:
			t.Fatalf("%s: pc: cache %#x, generic %#x", what(), a.pc, b.pc)
		case !reflect.DeepEqual(a.stack, b.stack):
			t.Fatalf("%s: stack: cache %v, generic %v", what(), a.stack, b.stack)
		case !reflect.DeepEqual(a.frames, b.frames):
			t.Fatalf("%s: frames: cache %+v, generic %+v", what(), a.frames, b.frames)
		case !bytes.Equal(a.mem, b.mem):
			t.Fatalf("%s: memory differs", what())
		case !reflect.DeepEqual(outs[0], outs[1]):
			t.Fatalf("%s: output: cache %q, generic %q", what(), outs[0], outs[1])
		case a.halted != b.halted || a.waiting != b.waiting || a.wait != b.wait:
			t.Fatalf("%s: halted/waiting: cache %v/%v, generic %v/%v", what(), a.halted, a.waiting, b.halted, b.waiting)
		}
	})
}

// runOne executes one instruction as Run would (a panic becomes an
// internal error) and returns the error's text, "" if none.
func runOne(m *Machine) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprintf("internal error: %v", r)
		}
	}()
	m.loop(1)
	if m.err != nil {
		return m.err.Error()
	}
	return ""
}

func TestOpcodeTable(t *testing.T) {
	seen := map[string]bool{}
	for i := range opcodes {
		d := &opcodes[i]
		if d.name == "" || strings.ToLower(d.name) != d.name {
			t.Errorf("row %d: name %q", i, d.name)
		}
		key := fmt.Sprintf("%v v%d", d, d.minV)
		if seen[key] {
			t.Errorf("%s twice", key)
		}
		seen[key] = true
		if d.fast != kGeneric && d.flags&fText != 0 {
			t.Errorf("%v: a fast kind with a string", d)
		}
	}
	// Every version zvm loads has the opcodes the fast path runs.
	for _, v := range []int{3, 4, 5, 7, 8} {
		for _, c := range []struct {
			c    opCount
			num  int
			want string
		}{{op2, 1, "je"}, {op1, 11, "ret"}, {op0, 0, "rtrue"}, {opV, 1, "storew"}, {op2, 20, "add"}} {
			if d := opTable[v][c.c][c.num]; d == nil || d.name != c.want {
				t.Errorf("version %d %s:%d = %v, want %s", v, c.c, c.num, d, c.want)
			}
		}
	}
	if d := opTable[3][op1][15]; d == nil || d.name != "not" {
		t.Errorf("v3 1OP:15 = %v, want not", d)
	}
	if d := opTable[5][op1][15]; d == nil || d.name != "call_1n" {
		t.Errorf("v5 1OP:15 = %v, want call_1n", d)
	}
	if opTable[3][op2][25] != nil {
		t.Error("call_2s in version 3")
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "both in version") {
			t.Errorf("a table with a repeated opcode built (%v)", r)
		}
	}()
	buildOpTable([]opcode{opcodes[0], opcodes[0]})
}

func TestFaultsNameOpcodes(t *testing.T) {
	for _, c := range []struct {
		v    int
		code []byte
		want string
	}{
		{5, []byte{0x17, 0x07, 0x00, 0x00}, "2OP:23 (div): division by zero"},                                   // div #7 #0 -> sp
		{3, []byte{0xd9, 0x5f, 0x01, 0x02, 0x00}, "illegal opcode 2OP:25 (call_2s, versions 4-8) in version 3"}, // call_2s in v3
		{5, []byte{0xe1, 0x5f, 0x01, 0x02}, "VAR:1 (storew) needs 3 operands, got 2"},
		{5, []byte{0xbe, 0x1d, 0xff}, "illegal opcode EXT:29 in version 5"},
	} {
		for _, noCache := range []bool{false, true} {
			m, at := planted(t, compile(t, "mini", c.v), c.code)
			m.pc, m.noCache = at, noCache
			got := runOne(m)
			if !strings.Contains(got, c.want) || !strings.Contains(got, fmt.Sprintf("pc %#x", at)) {
				t.Errorf("v%d % x (noCache %v): error %q, want it to name pc %#x and contain %q", c.v, c.code, noCache, got, at, c.want)
			}
		}
	}
}

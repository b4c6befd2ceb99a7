package zvm

import "fmt"

// The interpreter loop: decoding (§4), variables and the stack (§6), calls
// and returns (§6.4), branches (§4.7), and the opcodes of §14/§15 by version.

// operand types (§4.2)
const (
	opLarge   = 0
	opSmall   = 1
	opVar     = 2
	opOmitted = 3
)

// Run executes until the game needs input (WaitLine, WaitKey) or halts. After
// an error (ErrBudget, or a run-time error naming the PC) the machine is
// unusable until Restore or RestoreQuetzal; Run returns the error again.
func (m *Machine) Run() (w Wait, err error) {
	if m.err != nil {
		return Halted, m.err
	}
	if m.halted {
		return Halted, nil
	}
	if m.waiting {
		return m.wait, nil
	}
	defer func() {
		if r := recover(); r != nil {
			m.err = fmt.Errorf("zvm: pc %#x: internal error: %v", m.opPC, r)
			m.stop = true
			w, err = Halted, m.err
		}
	}()
	m.stop = false
	m.executed += uint64(m.loop(m.opt.Budget))
	switch {
	case m.err != nil:
		return Halted, m.err
	case m.waiting:
		return m.wait, nil
	case m.halted:
		return Halted, nil
	}
	m.err = ErrBudget
	m.stop = true
	return Halted, ErrBudget
}

// frame access

func (m *Machine) top() *frame { return &m.frames[len(m.frames)-1] }

func (m *Machine) push(v uint16) {
	if len(m.stack) >= maxStack {
		m.fault("stack overflow")
		return
	}
	m.stack = append(m.stack, v)
}

// syncFrame caches the current frame's locals and evaluation-stack base
// (after every change of m.frames). The stack's capacity never grows (see
// maxStack), so the locals slice stays valid while values are pushed.
func (m *Machine) syncFrame() {
	f := &m.frames[len(m.frames)-1]
	end := f.base + f.nLocals
	m.locals = m.stack[f.base:end:end]
	m.evalBase = end
}

// maxFrames bounds the call stack's depth.
const maxFrames = 4096

// maxStack is the capacity of the value stack (locals and evaluation
// stacks of all frames), allocated once.
const maxStack = 65535

func (m *Machine) pop() uint16 {
	n := len(m.stack) - 1
	if n < m.evalBase {
		return m.underflow()
	}
	v := m.stack[n]
	m.stack = m.stack[:n]
	return v
}

func (m *Machine) peek() *uint16 {
	if len(m.stack) <= m.evalBase {
		m.fault("stack underflow")
		return &m.scratch
	}
	return &m.stack[len(m.stack)-1]
}

func (m *Machine) readVar(v int) uint16 {
	if v >= 16 {
		a := m.hdr.Globals + 2*(v-16)
		return uint16(m.mem[a])<<8 | uint16(m.mem[a+1])
	}
	if v == 0 {
		return m.pop()
	}
	if v > len(m.locals) {
		return m.localFault(v, false)
	}
	return m.locals[v-1]
}

func (m *Machine) writeVar(v int, x uint16) {
	switch {
	case v == 0:
		m.push(x)
	case v < 16:
		if v > len(m.locals) {
			m.localFault(v, true)
			return
		}
		m.locals[v-1] = x
	default:
		a := m.hdr.Globals + 2*(v-16)
		m.mem[a], m.mem[a+1] = byte(x>>8), byte(x)
	}
}

// Indirect variable references (§6.3.4): variable 0 is the top of the
// stack, read or written in place. The variable number is an operand, so
// a story can give any 16-bit value where §4.2.3 allows 0-255: a larger
// one faults (it would address past the globals table) on both paths.
func (m *Machine) readVarInd(v int) uint16 {
	if v == 0 {
		return *m.peek()
	}
	if v > 0xff {
		m.fault("variable number %d out of range (0-255)", v)
		return 0
	}
	return m.readVar(v)
}

func (m *Machine) writeVarInd(v int, x uint16) {
	if v == 0 {
		*m.peek() = x
		return
	}
	if v > 0xff {
		m.fault("variable number %d out of range (0-255)", v)
		return
	}
	m.writeVar(v, x)
}

// fetch reads the next byte of the current instruction. step checks that
// the instruction starts inside memory; no instruction is longer than
// codeSlack bytes, and m.code is memory followed by that many zeros, so
// fetch needs no check of its own (and is small enough to inline).
func (m *Machine) fetch() byte {
	pc := m.pc
	m.pc = pc + 1
	return m.code[pc]
}

// codeSlack is the zero padding after memory in m.code: more than the
// longest instruction (opcode, 2 types bytes, 8 two-byte operands, a store
// byte and 2 branch bytes: 22 bytes).
const codeSlack = 32

// The fault helpers below keep the hot accessors small enough to inline.

//go:noinline
func (m *Machine) localFault(v int, write bool) uint16 {
	what := "read"
	if write {
		what = "write"
	}
	m.fault("%s of local %d in a routine with %d locals", what, v, len(m.locals))
	return 0
}

// underflow is a pull from an empty evaluation stack. The standard calls it
// illegal (§6.3.2), but Infocom's interpreters, and Frotz (which Jericho
// and dfrotz are) after them, keep a routine's frame on the same stack just
// below its evaluation stack, so the pull reads the frame: its last local
// (Frotz's frame word, argument count and call type, when it has none).
// Games were played that way: seastalker returns with ret_popped from a
// routine that pushed nothing. The stack is left as it was (Frotz moves
// its stack pointer into the frame; no game of the Jericho suite pulls
// twice).
//
//go:noinline
func (m *Machine) underflow() uint16 {
	f := m.top()
	if f.nLocals > 0 {
		return m.stack[f.base+f.nLocals-1]
	}
	v := uint16(f.nArgs)
	if f.store < 0 {
		v |= 1 << 12
	}
	return v
}

func (m *Machine) store(x uint16) {
	m.writeVar(int(m.fetch()), x)
}

func (m *Machine) branch(cond bool) {
	b := m.fetch()
	off := int(b & 0x3f)
	if b&0x40 == 0 {
		off = off<<8 | int(m.fetch())
		if off&0x2000 != 0 {
			off -= 0x4000
		}
	}
	if cond != (b&0x80 != 0) {
		return
	}
	switch off {
	case 0:
		m.ret(0)
	case 1:
		m.ret(1)
	default:
		m.pc += off - 2
	}
}

func (m *Machine) call(paddr uint16, args []uint16, store int) {
	if paddr == 0 {
		if store >= 0 {
			m.writeVar(store, 0)
		}
		return
	}
	a := m.unpack(paddr, packedRoutine)
	if a >= len(m.mem) {
		m.fault("call to routine %#x outside memory", a)
		return
	}
	n := int(m.mem[a])
	a++
	if n > 15 {
		m.fault("routine at %#x declares %d locals (at most 15)", a-1, n)
		return
	}
	if len(m.frames) >= maxFrames {
		m.fault("call stack overflow (%d frames)", maxFrames)
		return
	}
	if len(m.stack)+n >= maxStack {
		m.fault("stack overflow")
		return
	}
	base := len(m.stack)
	m.stack = m.stack[:base+n] // within the capacity (maxStack)
	locals := m.stack[base : base+n]
	if m.version <= 4 {
		// initial values follow the locals count (§5.2.1)
		if a+2*n > len(m.mem) {
			m.stack = m.stack[:base]
			m.fault("routine at %#x runs past the end of memory", a-1)
			return
		}
		for i := range locals {
			locals[i] = uint16(m.mem[a])<<8 | uint16(m.mem[a+1])
			a += 2
		}
	} else {
		clear(locals)
	}
	copy(locals, args)
	m.frames = append(m.frames, frame{retPC: m.pc, store: store, base: base, nLocals: n, nArgs: len(args)})
	m.syncFrame()
	m.pc = a
}

func (m *Machine) ret(x uint16) {
	if len(m.frames) <= 1 {
		m.halted = true // returned from the main routine
		m.stop = true
		return
	}
	f := m.frames[len(m.frames)-1]
	m.frames = m.frames[:len(m.frames)-1]
	m.stack = m.stack[:f.base]
	m.syncFrame()
	m.pc = f.retPC
	if f.store >= 0 {
		m.writeVar(f.store, x)
	}
}

func (m *Machine) storeByte() int { return int(m.fetch()) }

// step decodes and executes one instruction. The common forms (long 2OP,
// short 1OP and 0OP) are decoded inline from a local PC; the variable and
// extended forms read their types bytes.
func (m *Machine) step() {
	pc := m.pc
	m.opPC = pc
	mem := m.mem
	if uint(pc) >= uint(len(mem)) {
		m.fault("program counter %#x outside memory", pc)
		return
	}
	if uint(pc)+3 >= uint(len(mem)) {
		m.stepSlow()
		return
	}
	op := mem[pc]
	switch {
	case op < 0x80: // long form, 2OP: two one-byte operands
		a, b := mem[pc+1], mem[pc+2]
		m.pc = pc + 3
		if op&0x40 != 0 {
			m.ops[0] = m.readVar(int(a))
		} else {
			m.ops[0] = uint16(a)
		}
		if op&0x20 != 0 {
			m.ops[1] = m.readVar(int(b))
		} else {
			m.ops[1] = uint16(b)
		}
		m.exec(op2, int(op&0x1f), 2)
	case op < 0xb0: // short form, 1OP
		switch (op >> 4) & 3 {
		case opLarge:
			m.ops[0] = uint16(mem[pc+1])<<8 | uint16(mem[pc+2])
			m.pc = pc + 3
		case opSmall:
			m.ops[0] = uint16(mem[pc+1])
			m.pc = pc + 2
		default:
			m.pc = pc + 2
			m.ops[0] = m.readVar(int(mem[pc+1]))
		}
		m.exec(op1, int(op&0x0f), 1)
	case op < 0xc0 && (op != 0xbe || m.version < 5): // short form, 0OP
		m.pc = pc + 1
		m.exec(op0, int(op&0x0f), 0)
	case op == 0xbe || op == 0xec || op == 0xfa || uint(pc)+12 >= uint(len(mem)):
		m.stepSlow() // extended form, two types bytes, or near the end
	default: // variable form, one types byte: at most 1+1+8 bytes
		tb := mem[pc+1]
		p := pc + 2
		n := 0
	operands:
		for shift := 6; shift >= 0; shift -= 2 {
			switch (tb >> shift) & 3 {
			case opLarge:
				m.ops[n] = uint16(mem[p])<<8 | uint16(mem[p+1])
				p += 2
			case opSmall:
				m.ops[n] = uint16(mem[p])
				p++
			case opVar:
				m.ops[n] = m.readVar(int(mem[p]))
				p++
			default:
				break operands
			}
			n++
		}
		m.pc = p
		if op < 0xe0 {
			m.exec(op2, int(op&0x1f), n)
		} else {
			m.exec(opV, int(op&0x1f), n)
		}
	}
}

// stepSlow decodes any instruction with full checks: the variable and
// extended forms, and instructions near the end of memory.
func (m *Machine) stepSlow() {
	m.pc = m.opPC
	op := m.fetch()
	var types [8]byte
	nt := 0
	switch {
	case op < 0x80: // long form, 2OP
		types[0], types[1] = opSmall, opSmall
		if op&0x40 != 0 {
			types[0] = opVar
		}
		if op&0x20 != 0 {
			types[1] = opVar
		}
		nt = 2
	case op < 0xb0: // short form, 1OP
		types[0] = (op >> 4) & 3
		nt = 1
	case op < 0xc0: // short form, 0OP (or extended)
		if op == 0xbe && m.version >= 5 {
			ext := m.fetch()
			tb := m.fetch()
			for i := 0; i < 4; i++ {
				types[i] = (tb >> (6 - 2*i)) & 3
			}
			nt = 4
			n := m.operands(types[:nt])
			m.exec(opE, int(ext), n)
			return
		}
		m.exec(op0, int(op&0x0f), 0)
		return
	default: // variable form
		tb := m.fetch()
		for i := 0; i < 4; i++ {
			types[i] = (tb >> (6 - 2*i)) & 3
		}
		nt = 4
		if op == 0xec || op == 0xfa { // call_vs2, call_vn2: a second types byte
			tb2 := m.fetch()
			for i := 0; i < 4; i++ {
				types[4+i] = (tb2 >> (6 - 2*i)) & 3
			}
			nt = 8
		}
	}
	n := m.operands(types[:nt])
	if m.stop && m.err != nil {
		return
	}
	switch {
	case op < 0x80:
		m.exec(op2, int(op&0x1f), n)
	case op < 0xb0:
		m.exec(op1, int(op&0x0f), 1)
	case op < 0xe0:
		m.exec(op2, int(op&0x1f), n)
	default:
		m.exec(opV, int(op&0x1f), n)
	}
}

// operands reads the operands of the given types into m.ops and returns
// their number (omitted operands end the list, §4.4.3).
func (m *Machine) operands(types []byte) int {
	n := 0
	for _, t := range types {
		switch t {
		case opLarge:
			hi := m.fetch()
			m.ops[n] = uint16(hi)<<8 | uint16(m.fetch())
		case opSmall:
			m.ops[n] = uint16(m.fetch())
		case opVar:
			m.ops[n] = m.readVar(int(m.fetch()))
		default:
			return n
		}
		n++
	}
	return n
}

func (m *Machine) checksum() uint16 {
	end := m.hdr.FileLength
	if end == 0 || end > len(m.story) {
		end = len(m.story)
	}
	var sum uint16
	for _, b := range m.story[min(0x40, end):end] {
		sum += uint16(b)
	}
	return sum
}

func (m *Machine) copyTable(first, second, size int) {
	if second == 0 {
		for i := 0; i < abs(size); i++ {
			m.wb(first+i, 0)
		}
		return
	}
	if size < 0 || first > second {
		for i := 0; i < abs(size) && m.err == nil; i++ {
			m.wb(second+i, m.rb(first+i))
		}
		return
	}
	for i := size - 1; i >= 0 && m.err == nil; i-- {
		m.wb(second+i, m.rb(first+i))
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func (m *Machine) printTable(addr, width, height, skip int) {
	s := &m.screen
	col := s.curCol
	for r := 0; r < height && m.err == nil; r++ {
		if r > 0 {
			if s.window == 1 {
				s.curRow++
				s.curCol = col
			} else {
				m.printZ(13)
			}
		}
		for c := 0; c < width && m.err == nil; c++ {
			m.printZ(uint16(m.rb(addr)))
			addr++
		}
		addr += skip
	}
}

// gameSave is the game's save opcode: the state goes to an in-memory slot
// (one per machine, kept across Restore), and the save succeeds.
func (m *Machine) gameSave() {
	m.saveSlot = m.snapshot() // pc is at the branch or store byte
	if m.version <= 3 {
		m.branch(true)
	} else {
		m.store(1)
	}
}

// gameRestore is the game's restore opcode: back to the in-memory slot,
// where the save instruction then answers "restored" (branch taken in v3,
// 2 in v4+); it fails (branch not taken, 0) if nothing was saved.
func (m *Machine) gameRestore() {
	if m.saveSlot == nil {
		if m.version <= 3 {
			m.branch(false)
		} else {
			m.store(0)
		}
		return
	}
	m.restoreState(m.saveSlot, true)
	if m.version <= 3 {
		m.branch(true)
	} else {
		m.store(2)
	}
}

package zvm

import (
	"fmt"
	"strconv"
)

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
// stack, read or written in place.
func (m *Machine) readVarInd(v int) uint16 {
	if v == 0 {
		return *m.peek()
	}
	return m.readVar(v)
}

func (m *Machine) writeVarInd(v int, x uint16) {
	if v == 0 {
		*m.peek() = x
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
	if len(m.frames) >= 4096 {
		m.fault("call stack overflow (4096 frames)")
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

func (m *Machine) illegal(kind string, n int) {
	m.fault("illegal opcode %s:%d in version %d", kind, n, m.version)
}

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
		m.exec2(int(op&0x1f), 2)
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
		m.exec1(int(op & 0x0f))
	case op < 0xc0 && (op != 0xbe || m.version < 5): // short form, 0OP
		m.pc = pc + 1
		m.exec0(int(op & 0x0f))
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
			m.exec2(int(op&0x1f), n)
		} else {
			m.execVar(int(op&0x1f), n)
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
			m.execExt(int(ext), n)
			return
		}
		m.exec0(int(op & 0x0f))
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
		m.exec2(int(op&0x1f), n)
	case op < 0xb0:
		m.exec1(int(op & 0x0f))
	case op < 0xe0:
		m.exec2(int(op&0x1f), n)
	default:
		m.execVar(int(op&0x1f), n)
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

func (m *Machine) need(n, want int, name string) bool {
	if n < want {
		m.fault("%s needs %d operands, got %d", name, want, n)
		return false
	}
	return true
}

func (m *Machine) exec2(op int, n int) {
	a, b := m.ops[0], m.ops[1]
	if op != 1 && n < 2 {
		m.fault("2OP:%d needs 2 operands, got %d", op, n)
		return
	}
	switch op {
	case 1: // je
		if n < 2 {
			m.fault("je needs at least 2 operands")
			return
		}
		eq := false
		for i := 1; i < n; i++ {
			if a == m.ops[i] {
				eq = true
			}
		}
		m.branch(eq)
	case 2: // jl
		m.branch(int16(a) < int16(b))
	case 3: // jg
		m.branch(int16(a) > int16(b))
	case 4: // dec_chk
		x := m.readVarInd(int(a)) - 1
		m.writeVarInd(int(a), x)
		m.branch(int16(x) < int16(b))
	case 5: // inc_chk
		x := m.readVarInd(int(a)) + 1
		m.writeVarInd(int(a), x)
		m.branch(int16(x) > int16(b))
	case 6: // jin
		if a == 0 {
			m.branch(b == 0)
			return
		}
		m.branch(m.objRel(int(a), 0) == int(b))
	case 7: // test
		m.branch(a&b == b)
	case 8: // or
		m.store(a | b)
	case 9: // and
		m.store(a & b)
	case 10: // test_attr
		if a == 0 {
			m.branch(false)
			return
		}
		m.branch(m.attr(int(a), int(b)))
	case 11: // set_attr
		if a != 0 {
			m.setAttr(int(a), int(b), true)
		}
	case 12: // clear_attr
		if a != 0 {
			m.setAttr(int(a), int(b), false)
		}
	case 13: // store
		m.writeVarInd(int(a), b)
	case 14: // insert_obj
		if a == 0 || b == 0 {
			return
		}
		m.insertObj(int(a), int(b))
	case 15: // loadw
		m.store(m.rw(int(uint16(a + 2*b))))
	case 16: // loadb
		m.store(uint16(m.rb(int(uint16(a + b)))))
	case 17: // get_prop
		if a == 0 {
			m.store(0)
			return
		}
		m.store(m.getProp(int(a), int(b)))
	case 18: // get_prop_addr
		if a == 0 {
			m.store(0)
			return
		}
		d, _ := m.findProp(int(a), int(b))
		m.store(uint16(d))
	case 19: // get_next_prop
		if a == 0 {
			m.store(0)
			return
		}
		m.store(uint16(m.nextProp(int(a), int(b))))
	case 20:
		m.store(a + b)
	case 21:
		m.store(a - b)
	case 22:
		m.store(a * b)
	case 23, 24: // div, mod (signed, truncating towards zero)
		if b == 0 {
			m.fault("division by zero")
			return
		}
		x, y := int32(int16(a)), int32(int16(b))
		if op == 23 {
			m.store(uint16(int16(x / y)))
		} else {
			m.store(uint16(int16(x % y)))
		}
	case 25: // call_2s
		if m.version < 4 {
			m.illegal("2OP", op)
			return
		}
		m.callArgs[0] = b
		m.call(a, m.callArgs[:1], m.storeByte())
	case 26: // call_2n
		if m.version < 5 {
			m.illegal("2OP", op)
			return
		}
		m.callArgs[0] = b
		m.call(a, m.callArgs[:1], -1)
	case 27: // set_colour: no colours (header flag clear); ignored
		if m.version < 5 {
			m.illegal("2OP", op)
		}
	case 28: // throw
		if m.version < 5 {
			m.illegal("2OP", op)
			return
		}
		if int(b) < 1 || int(b) > len(m.frames) {
			m.fault("throw to frame %d, which does not exist (depth %d)", b, len(m.frames))
			return
		}
		m.frames = m.frames[:b]
		m.syncFrame()
		m.ret(a)
	default:
		m.illegal("2OP", op)
	}
}

func (m *Machine) exec1(op int) {
	a := m.ops[0]
	switch op {
	case 0: // jz
		m.branch(a == 0)
	case 1, 2: // get_sibling, get_child
		var r int
		if a != 0 {
			r = m.objRel(int(a), op)
		}
		m.store(uint16(r))
		m.branch(r != 0)
	case 3: // get_parent
		var r int
		if a != 0 {
			r = m.objRel(int(a), 0)
		}
		m.store(uint16(r))
	case 4: // get_prop_len
		m.store(uint16(m.propLen(int(a))))
	case 5: // inc
		m.writeVarInd(int(a), m.readVarInd(int(a))+1)
	case 6: // dec
		m.writeVarInd(int(a), m.readVarInd(int(a))-1)
	case 7: // print_addr
		s, _ := m.decodeCached(int(a))
		m.printString(s)
	case 8: // call_1s
		if m.version < 4 {
			m.illegal("1OP", op)
			return
		}
		m.call(a, nil, m.storeByte())
	case 9: // remove_obj
		if a != 0 {
			m.removeObj(int(a))
		}
	case 10: // print_obj
		if a != 0 {
			m.printString(m.objName(int(a)))
		}
	case 11: // ret
		m.ret(a)
	case 12: // jump
		m.pc += int(int16(a)) - 2
	case 13: // print_paddr
		s, _ := m.decodeCached(m.unpack(a, packedString))
		m.printString(s)
	case 14: // load
		m.store(m.readVarInd(int(a)))
	case 15:
		if m.version <= 4 { // not
			m.store(^a)
		} else { // call_1n
			m.call(a, nil, -1)
		}
	}
}

func (m *Machine) exec0(op int) {
	switch op {
	case 0:
		m.ret(1)
	case 1:
		m.ret(0)
	case 2, 3: // print, print_ret
		s, end := m.decodeCached(m.pc)
		m.pc = end
		m.printString(s)
		if op == 3 {
			m.printZ(13)
			m.ret(1)
		}
	case 4: // nop
	case 5: // save
		if m.version >= 5 {
			m.illegal("0OP", op)
			return
		}
		m.gameSave()
	case 6: // restore
		if m.version >= 5 {
			m.illegal("0OP", op)
			return
		}
		m.gameRestore()
	case 7: // restart
		m.restart()
	case 8: // ret_popped
		m.ret(m.pop())
	case 9:
		if m.version <= 4 { // pop
			m.pop()
		} else { // catch
			m.store(uint16(len(m.frames)))
		}
	case 10: // quit
		m.halted = true
		m.stop = true
	case 11: // new_line
		m.printZ(13)
	case 12: // show_status
		if m.version <= 3 {
			m.renderStatusV3()
		}
	case 13: // verify
		m.branch(m.checksum() == m.hdr.Checksum)
	case 15: // piracy: genuine
		if m.version < 5 {
			m.illegal("0OP", op)
			return
		}
		m.branch(true)
	default:
		m.illegal("0OP", op)
	}
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

func (m *Machine) execVar(op int, n int) {
	o := &m.ops
	switch op {
	case 0: // call / call_vs
		if !m.need(n, 1, "call") {
			return
		}
		copy(m.callArgs[:], o[1:n])
		m.call(o[0], m.callArgs[:n-1], m.storeByte())
	case 1: // storew
		if m.need(n, 3, "storew") {
			m.ww(int(o[0]+2*o[1]), o[2])
		}
	case 2: // storeb
		if m.need(n, 3, "storeb") {
			m.wb(int(o[0]+o[1]), byte(o[2]))
		}
	case 3: // put_prop
		if m.need(n, 3, "put_prop") && o[0] != 0 {
			m.putProp(int(o[0]), int(o[1]), o[2])
		}
	case 4: // sread / aread
		if !m.need(n, 1, "read") {
			return
		}
		if m.version <= 3 {
			m.renderStatusV3()
		}
		m.readN = n
		m.readOps = [4]uint16{o[0], o[1], o[2], o[3]}
		m.readPC = m.opPC
		m.wait, m.waiting, m.stop = WaitLine, true, true
	case 5: // print_char
		if m.need(n, 1, "print_char") {
			m.printZ(o[0])
		}
	case 6: // print_num
		if m.need(n, 1, "print_num") {
			m.printString(strconv.Itoa(int(int16(o[0]))))
		}
	case 7: // random
		if !m.need(n, 1, "random") {
			return
		}
		r := int16(o[0])
		if r <= 0 {
			m.rng.reseed(-int(r))
			m.store(0)
			return
		}
		m.store(uint16(m.rng.next(int(r))))
	case 8: // push
		if m.need(n, 1, "push") {
			m.push(o[0])
		}
	case 9: // pull
		if !m.need(n, 1, "pull") {
			return
		}
		x := m.pop()
		m.writeVarInd(int(o[0]), x)
	case 10: // split_window
		if m.need(n, 1, "split_window") {
			m.screen.setUpper(int(o[0]))
			if m.version == 3 {
				m.screen.clearUpper()
			}
		}
	case 11: // set_window
		if m.need(n, 1, "set_window") {
			m.screen.window = int(o[0]) & 1
			if o[0] == 1 {
				m.screen.curRow, m.screen.curCol = 0, 0
			}
		}
	case 12, 26: // call_vs2, call_vn2
		if m.version < 4 || (op == 26 && m.version < 5) {
			m.illegal("VAR", op)
			return
		}
		if !m.need(n, 1, "call") {
			return
		}
		copy(m.callArgs[:], o[1:n])
		st := -1
		if op == 12 {
			st = m.storeByte()
		}
		m.call(o[0], m.callArgs[:n-1], st)
	case 13: // erase_window
		if !m.need(n, 1, "erase_window") {
			return
		}
		switch int16(o[0]) {
		case -1:
			m.screen.setUpper(0)
			m.screen.window = 0
		case -2:
			m.screen.clearUpper()
		case 1:
			m.screen.clearUpper()
		}
	case 14: // erase_line
		s := &m.screen
		if n >= 1 && o[0] == 1 && s.window == 1 && s.curRow < len(s.grid) {
			for i := s.curCol; i < len(s.grid[s.curRow]); i++ {
				s.grid[s.curRow][i] = ' '
			}
		}
	case 15: // set_cursor
		if m.need(n, 2, "set_cursor") && m.screen.window == 1 {
			m.screen.curRow, m.screen.curCol = int(int16(o[0]))-1, int(int16(o[1]))-1
			if m.screen.curCol < 0 {
				m.screen.curCol = 0
			}
			m.screen.reach(m.screen.curRow)
		}
	case 16: // get_cursor
		if m.need(n, 1, "get_cursor") {
			row, col := 1, 1
			if m.screen.window == 1 {
				row, col = m.screen.curRow+1, m.screen.curCol+1
			}
			m.ww(int(o[0]), uint16(row))
			m.ww(int(o[0])+2, uint16(col))
		}
	case 17: // set_text_style: all text reaches Main whatever its style
		if n >= 1 {
			if o[0] == 0 {
				m.screen.style = 0
			} else {
				m.screen.style |= int(o[0]) // styles combine (§8.7.1.1)
			}
		}
	case 18: // buffer_mode
		if n >= 1 {
			m.screen.buffer = o[0] != 0
		}
	case 19: // output_stream
		if !m.need(n, 1, "output_stream") {
			return
		}
		m.outputStream(int(int16(o[0])), int(o[1]))
	case 20: // input_stream: only the keyboard (Input/Key)
	case 21: // sound_effect: no sound (header flag clear); ignored
	case 22: // read_char
		if !m.need(n, 1, "read_char") {
			return
		}
		m.readN = n
		m.readOps = [4]uint16{o[0], o[1], o[2], o[3]}
		m.readPC = m.opPC
		m.wait, m.waiting, m.stop = WaitKey, true, true
	case 23: // scan_table
		if !m.need(n, 3, "scan_table") {
			return
		}
		form := uint16(0x82)
		if n >= 4 {
			form = o[3]
		}
		size := int(form & 0x7f)
		if size == 0 {
			size = 1 // a zero field length would loop forever
		}
		found := 0
		a := int(o[1])
		for i := 0; i < int(o[2]) && m.err == nil; i++ {
			var v uint16
			if form&0x80 != 0 {
				v = m.rw(a)
			} else {
				v = uint16(m.rb(a))
			}
			if v == o[0] {
				found = a
				break
			}
			a += size
		}
		m.store(uint16(found))
		m.branch(found != 0)
	case 24: // not (v5)
		if m.version < 5 {
			m.illegal("VAR", op)
			return
		}
		m.store(^o[0])
	case 25: // call_vn
		if m.version < 5 {
			m.illegal("VAR", op)
			return
		}
		if !m.need(n, 1, "call_vn") {
			return
		}
		copy(m.callArgs[:], o[1:n])
		m.call(o[0], m.callArgs[:n-1], -1)
	case 27: // tokenise
		if m.version < 5 {
			m.illegal("VAR", op)
			return
		}
		if !m.need(n, 2, "tokenise") {
			return
		}
		d := &m.dict
		if n >= 3 && o[2] != 0 {
			dd, err := m.readDictionary(int(o[2]))
			if err != nil {
				m.fault("tokenise: %v", err)
				return
			}
			d = &dd
		}
		m.tokenise(int(o[0]), int(o[1]), d, n >= 4 && o[3] != 0)
	case 28: // encode_text
		if m.version < 5 {
			m.illegal("VAR", op)
			return
		}
		if !m.need(n, 4, "encode_text") {
			return
		}
		buf := make([]uint16, 0, 9)
		for i := 0; i < int(o[1]); i++ {
			buf = append(buf, uint16(m.rb(int(o[0])+int(o[2])+i)))
		}
		k := m.encodeWord(buf)
		for i := 0; i < 6; i++ {
			m.wb(int(o[3])+i, k[i])
		}
	case 29: // copy_table
		if m.version < 5 {
			m.illegal("VAR", op)
			return
		}
		if !m.need(n, 3, "copy_table") {
			return
		}
		m.copyTable(int(o[0]), int(o[1]), int(int16(o[2])))
	case 30: // print_table
		if m.version < 5 {
			m.illegal("VAR", op)
			return
		}
		if !m.need(n, 2, "print_table") {
			return
		}
		h, skip := 1, 0
		if n >= 3 {
			h = int(o[2])
		}
		if n >= 4 {
			skip = int(o[3])
		}
		m.printTable(int(o[0]), int(o[1]), h, skip)
	case 31: // check_arg_count
		if m.version < 5 {
			m.illegal("VAR", op)
			return
		}
		m.branch(int(o[0]) <= m.top().nArgs)
	default:
		m.illegal("VAR", op)
	}
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

func (m *Machine) execExt(op int, n int) {
	o := &m.ops
	switch op {
	case 0: // save
		if n > 0 {
			m.store(0) // saving a table to an auxiliary file: not provided
			return
		}
		m.gameSave()
	case 1: // restore
		if n > 0 {
			m.store(0)
			return
		}
		m.gameRestore()
	case 2, 3: // log_shift, art_shift
		if !m.need(n, 2, "shift") {
			return
		}
		p := int(int16(o[1]))
		switch {
		case p >= 0:
			if p > 15 {
				m.store(0)
			} else {
				m.store(o[0] << p)
			}
		case op == 2:
			if p < -15 {
				m.store(0)
			} else {
				m.store(o[0] >> -p)
			}
		default:
			if p < -15 {
				p = -15
			}
			m.store(uint16(int16(o[0]) >> -p))
		}
	case 4: // set_font
		if !m.need(n, 1, "set_font") {
			return
		}
		prev := m.screen.font
		switch o[0] {
		case 0:
			m.store(uint16(prev))
		case 1, 4:
			m.screen.font = int(o[0])
			m.store(uint16(prev))
		default:
			m.store(0)
		}
	case 9: // save_undo
		if m.undoShared {
			m.undoSlot, m.undoShared = nil, false // a Snapshot holds the old slot
		}
		m.undoSlot = m.snapshotInto(m.undoSlot)
		m.store(1)
	case 10: // restore_undo
		if m.undoSlot == nil {
			m.store(0)
			return
		}
		m.restoreState(m.undoSlot, true)
		m.store(2)
	case 11: // print_unicode
		if m.need(n, 1, "print_unicode") {
			if len(m.screen.mem3) > 0 {
				c := m.runeZscii(rune(o[0]))
				if c == 0 {
					c = '?'
				}
				m.printZ(c)
			} else if m.screen.stream1 {
				m.putRune(rune(o[0]))
			}
		}
	case 12: // check_unicode: everything printable can be printed and typed
		if m.need(n, 1, "check_unicode") {
			if o[0] >= 32 && o[0] != 127 {
				m.store(3)
			} else {
				m.store(0)
			}
		}
	case 13: // set_true_colour: no colours; ignored
	default:
		m.illegal("EXT", op)
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

package zvm

import "strconv"

// The opcode handlers of the generic path, one per row of the opcode table
// (opcodes.go). Each runs with its operands in m.ops[:n] (n at least the
// row's minOps) and m.pc at the instruction's store byte, branch data or
// string, or at the next instruction; the table has already checked the
// version.

// 2OP

func opJe(m *Machine, n int) {
	a := m.ops[0]
	eq := false
	for i := 1; i < n; i++ {
		if a == m.ops[i] {
			eq = true
		}
	}
	m.branch(eq)
}

func opJl(m *Machine, _ int) { m.branch(int16(m.ops[0]) < int16(m.ops[1])) }
func opJg(m *Machine, _ int) { m.branch(int16(m.ops[0]) > int16(m.ops[1])) }

func opDecChk(m *Machine, _ int) {
	a := int(m.ops[0])
	x := m.readVarInd(a) - 1
	m.writeVarInd(a, x)
	m.branch(int16(x) < int16(m.ops[1]))
}

func opIncChk(m *Machine, _ int) {
	a := int(m.ops[0])
	x := m.readVarInd(a) + 1
	m.writeVarInd(a, x)
	m.branch(int16(x) > int16(m.ops[1]))
}

func opJin(m *Machine, _ int) {
	a, b := m.ops[0], m.ops[1]
	if a == 0 {
		m.branch(b == 0)
		return
	}
	m.branch(m.objRel(int(a), 0) == int(b))
}

func opTest(m *Machine, _ int) { a, b := m.ops[0], m.ops[1]; m.branch(a&b == b) }
func opOr(m *Machine, _ int)   { m.store(m.ops[0] | m.ops[1]) }
func opAnd(m *Machine, _ int)  { m.store(m.ops[0] & m.ops[1]) }

func opTestAttr(m *Machine, _ int) {
	a, b := m.ops[0], m.ops[1]
	m.branch(a != 0 && m.attr(int(a), int(b)))
}

func opSetAttr(m *Machine, _ int) {
	if a := m.ops[0]; a != 0 {
		m.setAttr(int(a), int(m.ops[1]), true)
	}
}

func opClearAttr(m *Machine, _ int) {
	if a := m.ops[0]; a != 0 {
		m.setAttr(int(a), int(m.ops[1]), false)
	}
}

func opStore(m *Machine, _ int) { m.writeVarInd(int(m.ops[0]), m.ops[1]) }

func opInsertObj(m *Machine, _ int) {
	a, b := m.ops[0], m.ops[1]
	if a == 0 || b == 0 {
		return
	}
	m.insertObj(int(a), int(b))
}

func opLoadw(m *Machine, _ int) { m.store(m.rw(int(m.ops[0] + 2*m.ops[1]))) }
func opLoadb(m *Machine, _ int) { m.store(uint16(m.rb(int(m.ops[0] + m.ops[1])))) }

func opGetProp(m *Machine, _ int) {
	var x uint16
	if a := m.ops[0]; a != 0 {
		x = m.getProp(int(a), int(m.ops[1]))
	}
	m.store(x)
}

func opGetPropAddr(m *Machine, _ int) {
	var x uint16
	if a := m.ops[0]; a != 0 {
		d, _ := m.findProp(int(a), int(m.ops[1]))
		x = uint16(d)
	}
	m.store(x)
}

func opGetNextProp(m *Machine, _ int) {
	var x uint16
	if a := m.ops[0]; a != 0 {
		x = uint16(m.nextProp(int(a), int(m.ops[1])))
	}
	m.store(x)
}

func opAdd(m *Machine, _ int) { m.store(m.ops[0] + m.ops[1]) }
func opSub(m *Machine, _ int) { m.store(m.ops[0] - m.ops[1]) }
func opMul(m *Machine, _ int) { m.store(m.ops[0] * m.ops[1]) }

// div and mod are signed and truncate towards zero (§15).
func opDiv(m *Machine, _ int) {
	if x, y, ok := m.divisors(); ok {
		m.store(uint16(int16(x / y)))
	}
}

func opMod(m *Machine, _ int) {
	if x, y, ok := m.divisors(); ok {
		m.store(uint16(int16(x % y)))
	}
}

func (m *Machine) divisors() (x, y int32, ok bool) {
	if m.ops[1] == 0 {
		m.fault("division by zero")
		return 0, 0, false
	}
	return int32(int16(m.ops[0])), int32(int16(m.ops[1])), true
}

// opIgnore is an opcode whose effect zvm does not provide (colours, sound,
// input streams; the header says so) or that has none (nop).
func opIgnore(*Machine, int) {}

func opThrow(m *Machine, _ int) {
	a, b := m.ops[0], m.ops[1]
	if int(b) < 1 || int(b) > len(m.frames) {
		m.fault("throw to frame %d, which does not exist (depth %d)", b, len(m.frames))
		return
	}
	m.frames = m.frames[:b]
	m.syncFrame()
	m.ret(a)
}

// 1OP

func opJz(m *Machine, _ int) { m.branch(m.ops[0] == 0) }

func opGetSibling(m *Machine, _ int) { m.objLink(1) }
func opGetChild(m *Machine, _ int)   { m.objLink(2) }

// objLink is get_sibling (rel 1) and get_child (rel 2): store and branch.
func (m *Machine) objLink(rel int) {
	var r int
	if a := m.ops[0]; a != 0 {
		r = m.objRel(int(a), rel)
	}
	m.store(uint16(r))
	m.branch(r != 0)
}

func opGetParent(m *Machine, _ int) {
	var r int
	if a := m.ops[0]; a != 0 {
		r = m.objRel(int(a), 0)
	}
	m.store(uint16(r))
}

func opGetPropLen(m *Machine, _ int) { m.store(uint16(m.propLen(int(m.ops[0])))) }

func opInc(m *Machine, _ int) {
	a := int(m.ops[0])
	m.writeVarInd(a, m.readVarInd(a)+1)
}

func opDec(m *Machine, _ int) {
	a := int(m.ops[0])
	m.writeVarInd(a, m.readVarInd(a)-1)
}

func opPrintAddr(m *Machine, _ int) {
	s, _ := m.decodeCached(int(m.ops[0]))
	m.printString(s)
}

func opCall1s(m *Machine, _ int) { m.call(m.ops[0], nil, m.storeByte()) }
func opCall1n(m *Machine, _ int) { m.call(m.ops[0], nil, -1) }

func opRemoveObj(m *Machine, _ int) {
	if a := m.ops[0]; a != 0 {
		m.removeObj(int(a))
	}
}

func opPrintObj(m *Machine, _ int) {
	if a := m.ops[0]; a != 0 {
		m.printString(m.objName(int(a)))
	}
}

func opRet(m *Machine, _ int)  { m.ret(m.ops[0]) }
func opJump(m *Machine, _ int) { m.pc += int(int16(m.ops[0])) - 2 }

func opPrintPaddr(m *Machine, _ int) {
	s, _ := m.decodeCached(m.unpack(m.ops[0], packedString))
	m.printString(s)
}

func opLoad(m *Machine, _ int) { m.store(m.readVarInd(int(m.ops[0]))) }
func opNot(m *Machine, _ int)  { m.store(^m.ops[0]) }

// 0OP

func opRtrue(m *Machine, _ int)  { m.ret(1) }
func opRfalse(m *Machine, _ int) { m.ret(0) }

func opPrint(m *Machine, _ int) {
	s, end := m.decodeCached(m.pc)
	m.pc = end
	m.printString(s)
}

func opPrintRet(m *Machine, n int) {
	opPrint(m, n)
	m.printZ(13)
	m.ret(1)
}

func opSave(m *Machine, n int) {
	if n > 0 { // EXT save of a table to an auxiliary file: not provided
		m.store(0)
		return
	}
	m.gameSave()
}

func opRestore(m *Machine, n int) {
	if n > 0 {
		m.store(0)
		return
	}
	m.gameRestore()
}

func opRestart(m *Machine, _ int)   { m.restart() }
func opRetPopped(m *Machine, _ int) { m.ret(m.pop()) }
func opPop(m *Machine, _ int)       { m.pop() }
func opCatch(m *Machine, _ int)     { m.store(uint16(len(m.frames))) }

func opQuit(m *Machine, _ int) {
	m.halted = true
	m.stop = true
}

func opNewLine(m *Machine, _ int) { m.printZ(13) }

func opShowStatus(m *Machine, _ int) {
	if m.version <= 3 {
		m.renderStatusV3()
	}
}

func opVerify(m *Machine, _ int) { m.branch(m.checksum() == m.hdr.Checksum) }

// opPiracy answers "genuine".
func opPiracy(m *Machine, _ int) { m.branch(true) }

// VAR

// The call opcodes pass every operand after the routine as an argument,
// also for call_2s and call_2n in variable form with more than two
// operands (as Frotz does, and the fast path).

func opCallVs(m *Machine, n int) {
	copy(m.callArgs[:], m.ops[1:n])
	m.call(m.ops[0], m.callArgs[:n-1], m.storeByte())
}

func opCallVn(m *Machine, n int) {
	copy(m.callArgs[:], m.ops[1:n])
	m.call(m.ops[0], m.callArgs[:n-1], -1)
}

func opCallVs2(m *Machine, n int) { opCallVs(m, n) }

func opStorew(m *Machine, _ int) { m.ww(int(m.ops[0]+2*m.ops[1]), m.ops[2]) }
func opStoreb(m *Machine, _ int) { m.wb(int(m.ops[0]+m.ops[1]), byte(m.ops[2])) }

func opPutProp(m *Machine, _ int) {
	if o := &m.ops; o[0] != 0 {
		m.putProp(int(o[0]), int(o[1]), o[2])
	}
}

// opRead is sread and aread: the machine waits for a line, and Input
// finishes the instruction from readPC.
func opRead(m *Machine, n int) {
	if m.version <= 3 {
		m.renderStatusV3()
	}
	m.waitInput(n, WaitLine)
}

func opReadChar(m *Machine, n int) { m.waitInput(n, WaitKey) }

func (m *Machine) waitInput(n int, w Wait) {
	o := &m.ops
	m.readN = n
	m.readOps = [4]uint16{o[0], o[1], o[2], o[3]}
	m.readPC = m.opPC
	m.wait, m.waiting, m.stop = w, true, true
}

func opPrintChar(m *Machine, _ int) { m.printZ(m.ops[0]) }
func opPrintNum(m *Machine, _ int)  { m.printString(strconv.Itoa(int(int16(m.ops[0])))) }

func opRandom(m *Machine, _ int) {
	r := int16(m.ops[0])
	if r <= 0 {
		m.rng.reseed(-int(r))
		m.store(0)
		return
	}
	m.store(uint16(m.rng.next(int(r))))
}

func opPush(m *Machine, _ int) { m.push(m.ops[0]) }

func opPull(m *Machine, _ int) {
	x := m.pop()
	m.writeVarInd(int(m.ops[0]), x)
}

func opSplitWindow(m *Machine, _ int) {
	m.screen.setUpper(int(m.ops[0]))
	if m.version == 3 {
		m.screen.clearUpper()
	}
}

func opSetWindow(m *Machine, _ int) {
	m.screen.window = int(m.ops[0]) & 1
	if m.ops[0] == 1 {
		m.screen.curRow, m.screen.curCol = 0, 0
	}
}

func opEraseWindow(m *Machine, _ int) {
	switch int16(m.ops[0]) {
	case -1:
		m.screen.setUpper(0)
		m.screen.window = 0
	case -2, 1:
		m.screen.clearUpper()
	}
}

func opEraseLine(m *Machine, n int) {
	s := &m.screen
	if n >= 1 && m.ops[0] == 1 && s.window == 1 && s.curRow < len(s.grid) {
		for i := s.curCol; i < len(s.grid[s.curRow]); i++ {
			s.grid[s.curRow][i] = ' '
		}
	}
}

func opSetCursor(m *Machine, _ int) {
	s := &m.screen
	if s.window != 1 {
		return
	}
	s.curRow, s.curCol = int(int16(m.ops[0]))-1, int(int16(m.ops[1]))-1
	if s.curCol < 0 {
		s.curCol = 0
	}
	s.reach(s.curRow)
}

func opGetCursor(m *Machine, _ int) {
	row, col := 1, 1
	if m.screen.window == 1 {
		row, col = m.screen.curRow+1, m.screen.curCol+1
	}
	m.ww(int(m.ops[0]), uint16(row))
	m.ww(int(m.ops[0])+2, uint16(col))
}

// opSetTextStyle records the style; all text reaches Main whatever its
// style.
func opSetTextStyle(m *Machine, n int) {
	if n < 1 {
		return
	}
	if m.ops[0] == 0 {
		m.screen.style = 0
	} else {
		m.screen.style |= int(m.ops[0]) // styles combine (§8.7.1.1)
	}
}

func opBufferMode(m *Machine, n int) {
	if n >= 1 {
		m.screen.buffer = m.ops[0] != 0
	}
}

func opOutputStream(m *Machine, _ int) { m.outputStream(int(int16(m.ops[0])), int(m.ops[1])) }

func opScanTable(m *Machine, n int) {
	o := &m.ops
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
}

func opTokenise(m *Machine, n int) {
	o := &m.ops
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
}

func opEncodeText(m *Machine, _ int) {
	o := &m.ops
	buf := make([]uint16, 0, 9)
	for i := 0; i < int(o[1]); i++ {
		buf = append(buf, uint16(m.rb(int(o[0])+int(o[2])+i)))
	}
	k := m.encodeWord(buf)
	for i := 0; i < 6; i++ {
		m.wb(int(o[3])+i, k[i])
	}
}

func opCopyTable(m *Machine, _ int) {
	m.copyTable(int(m.ops[0]), int(m.ops[1]), int(int16(m.ops[2])))
}

func opPrintTable(m *Machine, n int) {
	h, skip := 1, 0
	if n >= 3 {
		h = int(m.ops[2])
	}
	if n >= 4 {
		skip = int(m.ops[3])
	}
	m.printTable(int(m.ops[0]), int(m.ops[1]), h, skip)
}

func opCheckArgCount(m *Machine, _ int) { m.branch(int(m.ops[0]) <= m.top().nArgs) }

// EXT

func opLogShift(m *Machine, _ int) { m.shift(true) }
func opArtShift(m *Machine, _ int) { m.shift(false) }

func (m *Machine) shift(logical bool) {
	x, p := m.ops[0], int(int16(m.ops[1]))
	switch {
	case p >= 0:
		if p > 15 {
			m.store(0)
		} else {
			m.store(x << p)
		}
	case logical:
		if p < -15 {
			m.store(0)
		} else {
			m.store(x >> -p)
		}
	default:
		if p < -15 {
			p = -15
		}
		m.store(uint16(int16(x) >> -p))
	}
}

func opSetFont(m *Machine, _ int) {
	prev := m.screen.font
	switch m.ops[0] {
	case 0:
		m.store(uint16(prev))
	case 1, 4:
		m.screen.font = int(m.ops[0])
		m.store(uint16(prev))
	default:
		m.store(0)
	}
}

func opSaveUndo(m *Machine, _ int) {
	if m.undoShared {
		m.undoSlot, m.undoShared = m.undoSpare, false // a Snapshot holds the old slot
	}
	m.undoSlot = m.snapshotInto(m.undoSlot)
	m.undoSpare = m.undoSlot
	m.store(1)
}

func opRestoreUndo(m *Machine, _ int) {
	if m.undoSlot == nil {
		m.store(0)
		return
	}
	m.restoreState(m.undoSlot, true)
	m.store(2)
}

func opPrintUnicode(m *Machine, _ int) {
	if len(m.screen.mem3) > 0 {
		c := m.runeZscii(rune(m.ops[0]))
		if c == 0 {
			c = '?'
		}
		m.printZ(c)
	} else if m.screen.stream1 {
		m.putRune(rune(m.ops[0]))
	}
}

// opCheckUnicode: everything printable can be printed and typed.
func opCheckUnicode(m *Machine, _ int) {
	if c := m.ops[0]; c >= 32 && c != 127 {
		m.store(3)
	} else {
		m.store(0)
	}
}

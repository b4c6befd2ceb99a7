package zvm

import (
	"fmt"
)

// frame is one routine call on the call stack. Its locals are
// stack[base:base+nLocals]; its evaluation stack follows them.
type frame struct {
	retPC   int
	store   int // variable that receives the result, or -1 to discard it
	base    int // index in Machine.stack of local 1
	nLocals int // 0-15
	nArgs   int // arguments supplied (for check_arg_count and Quetzal)
}

// Machine is one running Z-machine. It is not safe for concurrent use.
type Machine struct {
	opt       Options
	story     []byte // the story file as loaded (for restart, verify and Quetzal)
	mem       []byte // the whole memory: dynamic [0, dyn), then static and high
	code      []byte // mem followed by codeSlack zero bytes (see fetch)
	dyn       int    // size of dynamic memory (header word 0x0e)
	hdr       Header
	version   int
	packShift int // packed address to byte address: 2, 4 or 8 times (§1.2.3)

	pc     int
	opPC   int // the address of the instruction being executed (for errors)
	stack  []uint16
	frames []frame

	// text
	abbrevs  int // address of the abbreviations table
	alphabet [3][26]byte
	unicode  []rune // ZSCII 155.. to Unicode (the extension table's or the default)
	strCache map[int]cachedString

	// objects
	objTable   int // address of object 1's entry
	objSize    int // bytes per entry: 9 (v3) or 14 (v4+)
	propDefs   int // address of the property defaults table
	numObjects int

	// dictionary (the game's own one, header word 0x08)
	dict dictionary

	rng rng

	screen screen

	wait    Wait // what the machine waits for when waiting is true
	waiting bool
	halted  bool
	readOps [4]uint16 // operands of the pending read / read_char
	readN   int
	readPC  int  // address of the pending read instruction
	stop    bool // leave the run loop: set on wait, halt and error
	err     error

	ops          [8]uint16 // operands of the current instruction
	callArgs     [7]uint16
	scratch      uint16
	locals       []uint16 // the current frame's locals (a window on stack)
	evalBase     int      // index in stack of the current frame's evaluation stack
	decodeBudget int
	executed     uint64 // instructions executed by Run, in all

	// the pre-decoded instruction cache (icache.go): icache[pc-dyn] indexes
	// insts (0: not decoded yet, -1: decoded by step every time)
	icache  []int32
	insts   []inst
	noCache bool // tests: decode every instruction with step
	// retK[i] is the cached call instruction that made frame i, when
	// loop's inline call made it (a hint only: a return follows the
	// call's link when the PC is the address after that instruction, so
	// an entry left from an earlier state is harmless)
	retK []int32

	// WorldHash's range: the end of the property tables, and the property
	// pointers it was computed from
	worldEndAt    int
	worldPtrSum   uint64
	worldEndValid bool

	saveSlot   *Snapshot // the game's own save opcodes write here
	undoSlot   *Snapshot // save_undo / restore_undo
	undoShared bool      // a Snapshot holds undoSlot: do not reuse its buffers
	// undoSpare is a slot no Snapshot holds (Snapshot gives it up when it
	// takes it as the undo slot): save_undo after a Restore, which shares
	// the snapshot's slot, writes here instead of allocating a new one.
	undoSpare *Snapshot
}

// packed address kinds
const (
	packedRoutine = iota
	packedString
)

// fault records a run-time error (the first one wins) naming the PC.
func (m *Machine) fault(format string, args ...any) {
	if m.err == nil {
		at := fmt.Sprintf("pc %#x", m.opPC)
		if name := m.opAt(m.opPC); name != "" {
			at += ", " + name
		}
		m.err = fmt.Errorf("zvm: %s: %s", at, fmt.Sprintf(format, args...))
	}
	m.stop = true
}

func (m *Machine) rb(a int) byte {
	if uint(a) >= uint(len(m.mem)) {
		return byte(m.readFault("byte", a))
	}
	return m.mem[a]
}

func (m *Machine) rw(a int) uint16 {
	if mem := m.mem; uint(a)+1 < uint(len(mem)) {
		return uint16(mem[a])<<8 | uint16(mem[a+1])
	}
	return m.readFault("word", a)
}

//go:noinline
func (m *Machine) readFault(what string, a int) uint16 {
	m.fault("read of %s %#x outside memory (size %#x)", what, a, len(m.mem))
	return 0
}

func (m *Machine) wb(a int, v byte) {
	if uint(a) >= uint(m.dyn) {
		m.fault("write of byte %#x outside dynamic memory (size %#x)", a, m.dyn)
		return
	}
	m.mem[a] = v
}

func (m *Machine) ww(a int, v uint16) {
	if uint(a)+1 >= uint(m.dyn) {
		m.fault("write of word %#x outside dynamic memory (size %#x)", a, m.dyn)
		return
	}
	m.mem[a] = byte(v >> 8)
	m.mem[a+1] = byte(v)
}

// unpack turns a packed address into a byte address (§1.2.3).
func (m *Machine) unpack(p uint16, kind int) int {
	a := int(p) << m.packShift
	if m.version == 7 {
		if kind == packedRoutine {
			return a + 8*m.hdr.RoutineOffset
		}
		return a + 8*m.hdr.StringOffset
	}
	return a
}

// maxStorySize is the largest story file of each version (§1.1.4).
func maxStorySize(v int) int {
	switch v {
	case 1, 2, 3:
		return 128 << 10
	case 4, 5:
		return 256 << 10
	case 7:
		return 320 << 10
	default:
		return 512 << 10
	}
}

// Load validates story's header and returns a machine ready to Run from the
// first instruction. Errors name what is wrong with the file.
func Load(story []byte, opt Options) (*Machine, error) {
	if len(story) < 64 {
		return nil, fmt.Errorf("zvm: story file of %d bytes is shorter than its 64-byte header", len(story))
	}
	v := int(story[0])
	switch v {
	case 3, 4, 5, 7, 8:
	case 1, 2:
		return nil, fmt.Errorf("zvm: story file version %d is not supported (versions 3, 4, 5, 7, 8 are)", v)
	case 6:
		return nil, fmt.Errorf("zvm: story file version 6 is not supported (versions 3, 4, 5, 7, 8 are)")
	default:
		return nil, fmt.Errorf("zvm: byte 0 of the story file is %d, not a Z-machine version (3, 4, 5, 7, 8): not a story file?", v)
	}
	if len(story) > maxStorySize(v) {
		return nil, fmt.Errorf("zvm: story file of %d bytes exceeds the version %d limit of %d bytes", len(story), v, maxStorySize(v))
	}
	if opt.Budget <= 0 {
		opt.Budget = DefaultBudget
	}
	if opt.Width <= 0 {
		opt.Width = 80
	}
	if opt.Width > 255 {
		opt.Width = 255
	}
	m := &Machine{opt: opt, version: v}
	switch {
	case v <= 3:
		m.packShift = 1
	case v <= 7:
		m.packShift = 2
	default:
		m.packShift = 3
	}
	m.story = append([]byte(nil), story...)
	word := func(a int) int { return int(story[a])<<8 | int(story[a+1]) }
	h := Header{
		Version:       v,
		Release:       word(0x02),
		Serial:        string(story[0x12:0x18]),
		Checksum:      uint16(word(0x1c)),
		HighMem:       word(0x04),
		InitialPC:     word(0x06),
		Dictionary:    word(0x08),
		ObjectTable:   word(0x0a),
		Globals:       word(0x0c),
		StaticMem:     word(0x0e),
		Abbreviations: word(0x18),
	}
	flen := word(0x1a)
	switch {
	case v <= 3:
		flen *= 2
	case v <= 5:
		flen *= 4
	default:
		flen *= 8
	}
	h.FileLength = flen
	if v >= 5 {
		h.TerminatingChars = word(0x2e)
		h.AlphabetTable = word(0x34)
		h.ExtensionTable = word(0x36)
	}
	if v == 7 {
		h.RoutineOffset = word(0x28)
		h.StringOffset = word(0x2a)
	}
	m.hdr = h
	size := len(story)
	if flen > size {
		// A file shorter than its header says: pad with zeros (some tools
		// strip trailing zeros), but only within the version's limit.
		if flen > maxStorySize(v) {
			return nil, fmt.Errorf("zvm: header file length %d exceeds the version %d limit", flen, v)
		}
		size = flen
	}
	m.code = make([]byte, size+codeSlack)
	m.mem = m.code[:size:size]
	copy(m.mem, story)
	m.dyn = h.StaticMem
	check := func(name string, addr, limit int) error {
		if addr < 0 || addr >= limit {
			return fmt.Errorf("zvm: header %s address %#x is outside %s (size %#x)", name, addr, map[bool]string{true: "dynamic memory", false: "memory"}[limit == m.dyn], limit)
		}
		return nil
	}
	if m.dyn < 64 || m.dyn > len(m.mem) || m.dyn > 0x10000 {
		return nil, fmt.Errorf("zvm: header static memory base %#x is invalid (must be 64..%#x and below 64K)", m.dyn, len(m.mem))
	}
	for _, c := range []struct {
		name        string
		addr, limit int
	}{
		{"object table", h.ObjectTable, m.dyn},
		{"globals", h.Globals, m.dyn},
		{"dictionary", h.Dictionary, len(m.mem)},
		{"abbreviations", h.Abbreviations, len(m.mem)},
		{"initial PC", h.InitialPC, len(m.mem)},
	} {
		if err := check(c.name, c.addr, c.limit); err != nil {
			return nil, err
		}
	}
	if h.Globals+480 > m.dyn {
		return nil, fmt.Errorf("zvm: header globals table at %#x does not fit in dynamic memory (size %#x)", h.Globals, m.dyn)
	}
	if h.AlphabetTable != 0 && h.AlphabetTable+78 > len(m.mem) {
		return nil, fmt.Errorf("zvm: header alphabet table address %#x is outside memory", h.AlphabetTable)
	}
	if h.ExtensionTable != 0 && h.ExtensionTable+2 > len(m.mem) {
		return nil, fmt.Errorf("zvm: header extension table address %#x is outside memory", h.ExtensionTable)
	}
	if err := m.initText(); err != nil {
		return nil, err
	}
	if err := m.initObjects(); err != nil {
		return nil, err
	}
	if err := m.initDictionary(); err != nil {
		return nil, err
	}
	m.stack = make([]uint16, 0, maxStack)
	m.frames = make([]frame, 0, 64)
	m.strCache = make(map[int]cachedString)
	m.restart()
	return m, nil
}

// restart puts the machine in its initial state (also the restart opcode):
// dynamic memory from the story file, empty stacks, the header's
// interpreter fields, a freshly seeded random generator, a clear screen.
func (m *Machine) restart() {
	keep := uint16(0)
	if m.frames != nil && len(m.mem) > 0x11 {
		keep = m.rw(0x10) & 3 // transcripting and fixed-pitch survive restart (§6.1.3)
	}
	copy(m.mem[:m.dyn], m.story)
	m.stack = m.stack[:0]
	m.frames = append(m.frames[:0], frame{retPC: 0, store: -1})
	m.syncFrame()
	m.pc = m.hdr.InitialPC
	m.rng.seed(m.opt.Seed)
	m.screen.reset(m.version, m.opt.Width)
	m.waiting, m.halted = false, false
	m.setHeaderFields(keep)
}

// setHeaderFields writes what the interpreter tells the game (§11).
func (m *Machine) setHeaderFields(flags2Keep uint16) {
	mem := m.mem
	if m.version <= 3 {
		// Flags 1: status line available (bit 4 clear), screen splitting
		// available (bit 5), fixed-pitch default font (bit 6 clear).
		mem[1] = mem[1]&^0x50 | 0x20
	} else {
		// Flags 1: no colours, no pictures, bold, italic, fixed-space
		// available, no sound, no timed input (§11.1.2).
		mem[1] = mem[1]&^(0x01|0x02|0x20|0x80) | 0x04 | 0x08 | 0x10
	}
	f2 := uint16(mem[0x10])<<8 | uint16(mem[0x11])
	f2 = f2&^3 | flags2Keep
	// Clear what the game may ask for but does not get: pictures (bit 3),
	// mouse (bit 5), colours (bit 6), sound (bit 7), menus (bit 8). Undo
	// (bit 4) is provided.
	f2 &^= 1<<3 | 1<<5 | 1<<6 | 1<<7 | 1<<8
	mem[0x10], mem[0x11] = byte(f2>>8), byte(f2)
	if m.version >= 4 {
		mem[0x1e] = 6   // interpreter number: IBM PC, as dfrotz says
		mem[0x1f] = 'Z' // interpreter version
		mem[0x20] = 255 // screen height in lines: no [MORE]
		mem[0x21] = byte(m.opt.Width)
	}
	if m.version >= 5 {
		mem[0x22], mem[0x23] = 0, byte(m.opt.Width) // width in units
		mem[0x24], mem[0x25] = 0, 255               // height in units
		mem[0x26], mem[0x27] = 1, 1                 // font width and height in units
		mem[0x2c], mem[0x2d] = 2, 9                 // default background black, foreground white
	}
	mem[0x32], mem[0x33] = 1, 1 // Standard 1.1
}

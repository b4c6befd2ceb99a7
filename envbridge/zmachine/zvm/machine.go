package zvm

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// Snapshot is the whole state of a Machine at one moment: dynamic memory,
// the stacks, the program counter, the random generator, the screen and
// stream state, and what the machine waits for.
type Snapshot struct {
	dyn     []byte
	stack   []uint16
	frames  []frame
	pc      int
	rng     rng
	screen  screen
	wait    Wait
	waiting bool
	halted  bool
	readOps [4]uint16
	readN   int
	readPC  int
	undo    *Snapshot // the game's save_undo slot at that moment
	ident   storyIdent
}

// storyIdent tells stories apart: Restore ignores a snapshot of another.
type storyIdent struct {
	release, checksum uint16
	serial            [6]byte
	size              int
}

func (m *Machine) ident() storyIdent {
	id := storyIdent{release: uint16(m.hdr.Release), checksum: m.hdr.Checksum, size: len(m.mem)}
	copy(id.serial[:], m.hdr.Serial)
	return id
}

func (m *Machine) snapshot() *Snapshot {
	return m.snapshotInto(nil)
}

// snapshotInto captures the state into s's buffers when s is not nil (the
// save_undo slot, taken every turn by Inform games, reuses its own).
func (m *Machine) snapshotInto(s *Snapshot) *Snapshot {
	if s == nil {
		s = &Snapshot{}
	}
	*s = Snapshot{
		dyn:     append(s.dyn[:0], m.mem[:m.dyn]...),
		stack:   append(s.stack[:0], m.stack...),
		frames:  append(s.frames[:0], m.frames...),
		pc:      m.pc,
		rng:     m.rng,
		screen:  m.screen.cloneInto(s.screen.grid),
		wait:    m.wait,
		waiting: m.waiting,
		halted:  m.halted,
		readOps: m.readOps,
		readN:   m.readN,
		readPC:  m.readPC,
	}
	return s
}

// restoreState puts s back; with keepOutput the text printed so far stays
// (the game's own restore), else the output buffer is cleared.
func (m *Machine) restoreState(s *Snapshot, keepOutput bool) {
	copy(m.mem[:m.dyn], s.dyn)
	m.stack = append(m.stack[:0], s.stack...)
	m.frames = append(m.frames[:0], s.frames...)
	m.syncFrame()
	m.pc = s.pc
	m.rng = s.rng
	main := m.screen.main
	grid := m.screen.grid
	m.screen = s.screen
	// copy the grid into our own rows so that s stays unchanged
	m.screen.grid = grid[:0]
	for i, row := range s.screen.grid {
		if i < cap(grid) && len(grid[:cap(grid)][i]) == len(row) {
			r := grid[:cap(grid)][i]
			copy(r, row)
			m.screen.grid = append(m.screen.grid, r)
		} else {
			m.screen.grid = append(m.screen.grid, append([]rune(nil), row...))
		}
	}
	m.screen.mem3 = append([]mem3(nil), s.screen.mem3...)
	if keepOutput {
		m.screen.main = main
	} else {
		m.screen.main = main[:0]
	}
	m.wait, m.waiting, m.halted = s.wait, s.waiting, s.halted
	m.readOps, m.readN, m.readPC = s.readOps, s.readN, s.readPC
}

// Snapshot captures the whole machine state. It copies dynamic memory and
// the stacks only (static and high memory never change). The game's undo
// slot (save_undo) belongs to the state; its save slot (save) is like a
// file and does not.
func (m *Machine) Snapshot() *Snapshot {
	s := m.snapshot()
	s.undo = m.undoSlot
	s.ident = m.ident()
	m.undoShared = true
	if m.undoSpare == m.undoSlot {
		m.undoSpare = nil // s holds it now
	}
	return s
}

// Restore returns the machine to exactly the state of s (taken from this
// machine or another one of the same story); the output buffer is cleared
// and any error (ErrBudget) is forgotten. A nil snapshot, or one of
// another story (release, serial, checksum or size differ), is ignored
// (Restore has no error to return).
func (m *Machine) Restore(s *Snapshot) {
	if s == nil || s.ident != m.ident() || len(s.dyn) != m.dyn {
		return
	}
	m.restoreState(s, false)
	m.undoSlot, m.undoShared = s.undo, true
	m.err, m.stop = nil, false
}

// Input answers WaitLine with one line of text: it is lower-cased, stored
// in the game's text buffer (truncated to the buffer's size) and, when the
// game gave a parse buffer, tokenised with the game's dictionary (§15 read).
func (m *Machine) Input(line string) error {
	if err := m.ready(WaitLine); err != nil {
		return err
	}
	text, parse := int(m.readOps[0]), int(m.readOps[1])
	if m.readN < 2 {
		parse = 0
	}
	max := int(m.rb(text))
	if m.version <= 4 {
		max--
	}
	buf := make([]byte, 0, len(line))
	for _, r := range strings.ToLower(line) {
		if r == '\n' || r == '\r' {
			break
		}
		c := m.runeZscii(r)
		if c == 0 || c > 255 {
			continue
		}
		if len(buf) >= max {
			break
		}
		buf = append(buf, byte(c))
	}
	if m.version <= 4 {
		if text+1+len(buf) >= m.dyn {
			m.fault("read: text buffer %#x outside dynamic memory", text)
			return m.err
		}
		copy(m.mem[text+1:], buf)
		m.mem[text+1+len(buf)] = 0
	} else {
		if text+2+len(buf) > m.dyn {
			m.fault("read: text buffer %#x outside dynamic memory", text)
			return m.err
		}
		m.mem[text+1] = byte(len(buf))
		copy(m.mem[text+2:], buf)
	}
	if parse != 0 {
		m.tokenise(text, parse, &m.dict, false)
	}
	if m.version >= 5 {
		m.store(13) // the terminating character
	}
	m.waiting = false
	if m.err != nil {
		m.stop = true
		return m.err
	}
	return nil
}

// Key answers WaitKey with one ZSCII key code (13 return, 32 space, ...).
func (m *Machine) Key(zscii uint16) error {
	if err := m.ready(WaitKey); err != nil {
		return err
	}
	if zscii == 10 {
		zscii = 13
	}
	m.store(zscii)
	m.waiting = false
	return m.err
}

func (m *Machine) ready(w Wait) error {
	switch {
	case m.err != nil:
		return m.err
	case m.halted:
		return errors.New("zvm: the game has halted; it takes no input")
	case !m.waiting:
		return errors.New("zvm: the machine is not waiting for input; call Run first")
	case m.wait != w:
		return fmt.Errorf("zvm: the machine waits for %v, not %v", m.wait, w)
	}
	return nil
}

// Output returns the text printed since the last call and clears it.
func (m *Machine) Output() Output {
	o := Output{Main: string(m.screen.main), Status: m.statusLines()}
	m.screen.main = m.screen.main[:0]
	return o
}

// Version is the story file's version (3, 4, 5, 7 or 8).
func (m *Machine) Version() int { return m.version }

// StatusV3 reads version 3's status-line globals (§8.2.2): the location
// object's name (global 0) and either score and moves, or hours and minutes
// when the header marks a time game.
func (m *Machine) StatusV3() (location string, a, b int, timeGame bool) {
	if o := int(m.Global(0)); o >= 1 && o <= m.numObjects {
		err := m.err
		location = m.objName(o)
		m.err = err
	}
	timeGame = m.version <= 3 && m.mem[1]&0x02 != 0
	a, b = int(int16(m.Global(1))), int(int16(m.Global(2)))
	return location, a, b, timeGame
}

// Global returns global variable n (0-239); 0 out of range.
func (m *Machine) Global(n int) uint16 {
	if n < 0 || n > 239 {
		return 0
	}
	return m.PeekWord(m.hdr.Globals + 2*n)
}

// SetGlobal sets global variable n (0-239) to v; out of range it does
// nothing. The driver marks globals with it on a snapshot it then restores.
func (m *Machine) SetGlobal(n int, v uint16) {
	if n < 0 || n > 239 {
		return
	}
	m.setGlobal(n+16, v)
}

// PeekByte returns the byte at addr (0 outside memory). It stands for the
// brief's ReadByte(addr int) byte: go vet's stdmethods check rejects a method
// named ReadByte whose signature is not io.ByteReader's, so it has this name.
func (m *Machine) PeekByte(addr int) byte {
	if addr < 0 || addr >= len(m.mem) {
		return 0
	}
	return m.mem[addr]
}

// AppendMemory appends the n bytes of memory from addr to buf (those within
// memory) and returns it.
func (m *Machine) AppendMemory(buf []byte, addr, n int) []byte {
	if addr < 0 || n <= 0 || addr >= len(m.mem) {
		return buf
	}
	return append(buf, m.mem[addr:min(addr+n, len(m.mem))]...)
}

// PeekWord is ReadWord, named to match PeekByte.
func (m *Machine) PeekWord(addr int) uint16 {
	return uint16(m.PeekByte(addr))<<8 | uint16(m.PeekByte(addr+1))
}

// ReadWord returns the big-endian word at addr (0 outside memory).
func (m *Machine) ReadWord(addr int) uint16 { return m.PeekWord(addr) }

// Header returns the story file's header.
func (m *Machine) Header() Header { return m.hdr }

// NumObjects is the number of objects in the object table (counted up to
// the lowest property table, the usual layout).
func (m *Machine) NumObjects() int { return m.numObjects }

// Object returns object id (1..NumObjects) as it is now; the zero Object
// for other ids.
func (m *Machine) Object(id int) Object {
	if id < 1 || id > m.numObjects {
		return Object{}
	}
	err := m.err
	defer func() { m.err = err }()
	o := Object{ID: id, Parent: m.objRel(id, 0), Sibling: m.objRel(id, 1), Child: m.objRel(id, 2), Name: m.objName(id)}
	o.Attr = make([]bool, m.numAttrs())
	a := m.objTable + (id-1)*m.objSize
	for i := range o.Attr {
		o.Attr[i] = m.mem[a+i/8]&(0x80>>(i%8)) != 0
	}
	return o
}

// Dictionary returns the game's dictionary in order.
func (m *Machine) Dictionary() []DictWord {
	d := m.dict
	kl := 4
	if m.version >= 4 {
		kl = 6
	}
	out := make([]DictWord, 0, d.count)
	err := m.err
	for i := 0; i < d.count; i++ {
		e := d.entries + i*d.entLen
		s, _ := m.decode(e, 0)
		out = append(out, DictWord{Addr: e, Word: s, Data: append([]byte(nil), m.mem[e+kl:e+d.entLen]...)})
	}
	m.err = err
	return out
}

// WorldHash hashes the object tree (parents, siblings, children, attributes,
// properties: the entries and their property tables, all in dynamic memory)
// and the globals: equal hashes mean the world did not change. The hash is
// deterministic (the same state gives the same value in every process).
func (m *Machine) WorldHash() uint64 {
	start, end := m.hdr.ObjectTable, m.worldEnd()
	h := hashBytes(0x9e3779b97f4a7c15, m.mem[start:end])
	g := m.hdr.Globals
	return hashBytes(h, m.mem[g:g+480])
}

// worldEnd is the end of the object entries and their property tables. The
// layout is computed once and again only when a property-table pointer
// changes (which games do not do, but the check is cheap).
func (m *Machine) worldEnd() int {
	var sum uint64
	for id := 1; id <= m.numObjects; id++ {
		a := m.objTable + id*m.objSize - 2
		sum = sum*31 + (uint64(m.mem[a])<<8 | uint64(m.mem[a+1]))
	}
	if m.worldEndValid && sum == m.worldPtrSum {
		return m.worldEndAt
	}
	end := m.objTable + m.numObjects*m.objSize
	hi := end
	for id := 1; id <= m.numObjects; id++ {
		a := m.objTable + (id-1)*m.objSize
		p := int(m.mem[a+m.objSize-2])<<8 | int(m.mem[a+m.objSize-1])
		if p < end || p >= m.dyn {
			continue
		}
		q := p + 1 + 2*int(m.mem[p])
		for g := 0; g < 64 && q < m.dyn; g++ {
			b := int(m.mem[q])
			if b == 0 {
				q++
				break
			}
			if m.version <= 3 {
				q += 1 + b>>5 + 1
			} else if b&0x80 != 0 {
				if q+1 >= m.dyn {
					break
				}
				l := int(m.mem[q+1]) & 63
				if l == 0 {
					l = 64
				}
				q += 2 + l
			} else if b&0x40 != 0 {
				q += 3
			} else {
				q += 2
			}
		}
		if q > hi {
			hi = min(q, m.dyn)
		}
	}
	m.worldEndAt, m.worldPtrSum, m.worldEndValid = hi, sum, true
	return hi
}

// hashBytes mixes b into h eight bytes at a time (a multiply-xorshift hash:
// fast, deterministic, good enough to tell states apart).
func hashBytes(h uint64, b []byte) uint64 {
	const k = 0xff51afd7ed558ccd
	for len(b) >= 8 {
		h = (h ^ binary.LittleEndian.Uint64(b)) * k
		h ^= h >> 32
		b = b[8:]
	}
	for _, c := range b {
		h = (h ^ uint64(c)) * k
		h ^= h >> 32
	}
	return (h ^ uint64(len(b))) * k
}

// Property returns a copy of the data of property n of object id as the
// machine holds it now, or nil when the object has no such property (or
// id or n is out of range). Inform's property 1 is "name": the dictionary
// addresses of the words the parser knows the object by.
func (m *Machine) Property(id, n int) []byte {
	if id < 1 || id > m.numObjects || n < 1 || n > 63 {
		return nil
	}
	err, stop := m.err, m.stop
	defer func() { m.err, m.stop = err, stop }()
	d, l := m.findProp(id, n)
	if d == 0 || m.err != nil || d+l > len(m.mem) {
		return nil
	}
	return append([]byte(nil), m.mem[d:d+l]...)
}

// RoutineAddress is the byte address of the routine at packed address p
// (§1.2.3), as a call reaches it.
func (m *Machine) RoutineAddress(p uint16) int { return m.unpack(p, packedRoutine) }

// PackedString decodes the string at packed address p (§1.2.3, §3), as
// print_paddr prints it; an error when it does not decode (outside
// memory, no end).
func (m *Machine) PackedString(p uint16) (string, error) {
	err, stop := m.err, m.stop
	defer func() { m.err, m.stop = err, stop }()
	m.err = nil
	a := m.unpack(p, packedString)
	if a < m.hdr.HighMem || a >= len(m.mem) {
		return "", fmt.Errorf("zvm: packed string %#x is outside high memory", p)
	}
	s, _ := m.decode(a, 0)
	if m.err != nil {
		return "", m.err
	}
	return s, nil
}

// Clone returns a new Machine of the same story in the same state (as
// Restore of a Snapshot would leave it), with its own memory, so that the
// two can run concurrently, one goroutine each. The clone starts with a
// copy of this machine's decoded instructions and strings.
func (m *Machine) Clone() *Machine {
	c, err := Load(m.story, m.opt)
	if err != nil {
		panic("zvm: Clone: a loaded story does not load again: " + err.Error()) // cannot happen: m was loaded from it
	}
	c.Restore(m.Snapshot())
	c.err, c.stop = m.err, m.stop
	c.saveSlot = m.saveSlot
	c.noCache = m.noCache
	if m.icache != nil {
		c.icache = append([]int32(nil), m.icache...)
		c.insts = append([]inst(nil), m.insts...)
	}
	for k, v := range m.strCache {
		c.strCache[k] = v
	}
	c.executed = m.executed
	return c
}

// Executed is the number of instructions Run has executed on this machine,
// in all (Restore does not rewind it).
func (m *Machine) Executed() uint64 { return m.executed }

package zvm

import "fmt"

// The object table (§12): property defaults, then entries of 9 bytes (v3:
// 4 attribute bytes, parent, sibling, child bytes, property address) or 14
// bytes (v4+: 6 attribute bytes, three words, property address).

func (m *Machine) initObjects() error {
	ot := m.hdr.ObjectTable
	m.propDefs = ot
	if m.version <= 3 {
		m.objTable = ot + 31*2
		m.objSize = 9
	} else {
		m.objTable = ot + 63*2
		m.objSize = 14
	}
	// The number of objects is not stored: the convention is that the
	// property tables follow the last entry, so the lowest property table
	// address bounds the entries (as Jericho and other tools count them).
	if m.objTable > m.dyn {
		return fmt.Errorf("zvm: object table at %#x does not fit in dynamic memory (size %#x)", ot, m.dyn)
	}
	lowest := m.dyn
	n := 0
	for {
		e := m.objTable + n*m.objSize
		if e+m.objSize > lowest || e+m.objSize > m.dyn {
			break
		}
		p := int(m.mem[e+m.objSize-2])<<8 | int(m.mem[e+m.objSize-1])
		if p < lowest && p > e {
			lowest = p
		}
		n++
		if m.version <= 3 && n == 255 || n == 65535 {
			break
		}
	}
	m.numObjects = n
	return nil
}

func (m *Machine) objAddr(o int) int {
	if o < 1 || (m.version <= 3 && o > 255) {
		m.fault("object %d does not exist", o)
		return -1
	}
	a := m.objTable + (o-1)*m.objSize
	if a+m.objSize > m.dyn {
		m.fault("object %d lies outside dynamic memory", o)
		return -1
	}
	return a
}

func (m *Machine) objRel(o int, which int) int { // which: 0 parent, 1 sibling, 2 child
	a := m.objAddr(o)
	if a < 0 {
		return 0
	}
	if m.version <= 3 {
		return int(m.mem[a+4+which])
	}
	return int(m.mem[a+6+2*which])<<8 | int(m.mem[a+7+2*which])
}

func (m *Machine) setObjRel(o int, which int, v int) {
	a := m.objAddr(o)
	if a < 0 {
		return
	}
	if m.version <= 3 {
		m.mem[a+4+which] = byte(v)
		return
	}
	m.mem[a+6+2*which] = byte(v >> 8)
	m.mem[a+7+2*which] = byte(v)
}

func (m *Machine) attr(o, n int) bool {
	a := m.objAddr(o)
	if a < 0 {
		return false
	}
	if n < 0 || n >= m.numAttrs() {
		return false // see setAttr
	}
	return m.mem[a+n/8]&(0x80>>(n%8)) != 0
}

func (m *Machine) numAttrs() int {
	if m.version <= 3 {
		return 32
	}
	return 48
}

func (m *Machine) setAttr(o, n int, on bool) {
	a := m.objAddr(o)
	if a < 0 {
		return
	}
	if n < 0 || n >= m.numAttrs() {
		// An attribute past the last (32 in version 3, 48 later) is
		// illegal (§12.3.1). Sherlock sets and clears attribute 48 in its
		// last act; Frotz ignores exactly that, and otherwise warns and
		// writes into the object's parent field. Here the write is
		// ignored and a test is false, for every game: no object is
		// damaged and the game goes on.
		return
	}
	if on {
		m.mem[a+n/8] |= 0x80 >> (n % 8)
	} else {
		m.mem[a+n/8] &^= 0x80 >> (n % 8)
	}
}

// removeObj detaches o from its parent (§15 remove_obj).
func (m *Machine) removeObj(o int) {
	p := m.objRel(o, 0)
	if p == 0 || m.err != nil {
		return
	}
	sib := m.objRel(o, 1)
	if c := m.objRel(p, 2); c == o {
		m.setObjRel(p, 2, sib)
	} else {
		for guard := 0; c != 0 && guard < 65536; guard++ {
			next := m.objRel(c, 1)
			if next == o {
				m.setObjRel(c, 1, sib)
				break
			}
			c = next
		}
	}
	m.setObjRel(o, 0, 0)
	m.setObjRel(o, 1, 0)
}

// insertObj makes o the first child of d.
func (m *Machine) insertObj(o, d int) {
	m.removeObj(o)
	if m.err != nil {
		return
	}
	m.setObjRel(o, 1, m.objRel(d, 2))
	m.setObjRel(d, 2, o)
	m.setObjRel(o, 0, d)
}

func (m *Machine) propTable(o int) int {
	a := m.objAddr(o)
	if a < 0 {
		return 0
	}
	return int(m.mem[a+m.objSize-2])<<8 | int(m.mem[a+m.objSize-1])
}

func (m *Machine) objName(o int) string {
	p := m.propTable(o)
	if m.err != nil || p == 0 {
		return ""
	}
	if m.rb(p) == 0 {
		return ""
	}
	s, _ := m.decode(p+1, 0)
	return s
}

// firstProp returns the address of the size byte of o's first property.
func (m *Machine) firstProp(o int) int {
	p := m.propTable(o)
	return p + 1 + 2*int(m.rb(p))
}

// propInfo reads the size byte(s) at a: property number, data length, and
// the address of the data.
func (m *Machine) propInfo(a int) (num, length, data int) {
	b := int(m.rb(a))
	if m.version <= 3 {
		return b & 31, b>>5 + 1, a + 1
	}
	num = b & 63
	if b&0x80 != 0 {
		length = int(m.rb(a+1)) & 63
		if length == 0 {
			length = 64
		}
		return num, length, a + 2
	}
	if b&0x40 != 0 {
		return num, 2, a + 1
	}
	return num, 1, a + 1
}

// findProp returns the data address and length of property n of o, or 0.
// It reads the size bytes from memory directly while they lie inside it
// (the walk of every get_prop); the rest of a walk that reaches the end of
// memory goes through findPropFrom, whose reads fault there.
func (m *Machine) findProp(o, n int) (int, int) {
	a := m.firstProp(o)
	if m.err != nil {
		return 0, 0
	}
	mem, v3 := m.mem, m.version <= 3
	for guard := 0; guard < 256; guard++ {
		if uint(a)+1 >= uint(len(mem)) {
			return m.findPropFrom(a, n, guard)
		}
		b := int(mem[a])
		var num, l, d int
		switch {
		case v3:
			num, l, d = b&31, b>>5+1, a+1
		case b&0x80 != 0:
			num, l, d = b&63, int(mem[a+1])&63, a+2
			if l == 0 {
				l = 64
			}
		case b&0x40 != 0:
			num, l, d = b&63, 2, a+1
		default:
			num, l, d = b&63, 1, a+1
		}
		if num == 0 {
			return 0, 0 // the end of the list
		}
		if num == n {
			return d, l
		}
		if num < n {
			return 0, 0 // properties are stored in descending order
		}
		a = d + l
	}
	return 0, 0
}

// findPropFrom is findProp's walk from the size byte at a, guard entries
// in, with every read checked (propInfo).
func (m *Machine) findPropFrom(a, n, guard int) (int, int) {
	for ; guard < 256 && m.err == nil; guard++ {
		num, l, d := m.propInfo(a)
		if num == 0 || m.err != nil {
			return 0, 0
		}
		if num == n {
			return d, l
		}
		if num < n {
			return 0, 0 // properties are stored in descending order
		}
		a = d + l
	}
	return 0, 0
}

func (m *Machine) getProp(o, n int) uint16 {
	maxProp := 31
	if m.version >= 4 {
		maxProp = 63
	}
	if n < 1 || n > maxProp {
		m.fault("property %d out of range", n)
		return 0
	}
	d, l := m.findProp(o, n)
	if d == 0 {
		return m.rw(m.propDefs + 2*(n-1))
	}
	if l == 1 {
		return uint16(m.rb(d))
	}
	return m.rw(d) // §15 get_prop: longer properties are an error; read the first word as most interpreters do
}

func (m *Machine) putProp(o, n int, v uint16) {
	d, l := m.findProp(o, n)
	if d == 0 {
		if m.err == nil {
			m.fault("put_prop: object %d has no property %d", o, n)
		}
		return
	}
	if l == 1 {
		m.wb(d, byte(v))
	} else {
		m.ww(d, v)
	}
}

func (m *Machine) propLen(addr int) int {
	if addr == 0 {
		return 0
	}
	b := int(m.rb(addr - 1))
	if m.version <= 3 {
		return b>>5 + 1
	}
	if b&0x80 != 0 {
		if l := b & 63; l != 0 {
			return l
		}
		return 64
	}
	if b&0x40 != 0 {
		return 2
	}
	return 1
}

func (m *Machine) nextProp(o, n int) int {
	if n == 0 {
		num, _, _ := m.propInfo(m.firstProp(o))
		return num
	}
	d, l := m.findProp(o, n)
	if d == 0 {
		if m.err == nil {
			m.fault("get_next_prop: object %d has no property %d", o, n)
		}
		return 0
	}
	num, _, _ := m.propInfo(d + l)
	return num
}

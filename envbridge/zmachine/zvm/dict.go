package zvm

import "fmt"

// The dictionary and tokenising (§13).

type dictionary struct {
	addr    int    // the table's address
	seps    []byte // word separators (ZSCII)
	entLen  int    // bytes per entry
	count   int    // entries (absolute value)
	sorted  bool   // a positive count means sorted (binary search)
	entries int    // address of the first entry
}

func (m *Machine) readDictionary(addr int) (dictionary, error) {
	var d dictionary
	if addr <= 0 || addr >= len(m.mem) {
		return d, fmt.Errorf("dictionary address %#x is outside memory", addr)
	}
	n := int(m.mem[addr])
	if addr+1+n+3 > len(m.mem) {
		return d, fmt.Errorf("dictionary at %#x runs past the end of memory", addr)
	}
	d.addr = addr
	d.seps = m.mem[addr+1 : addr+1+n]
	d.entLen = int(m.mem[addr+1+n])
	c := int(int16(uint16(m.mem[addr+2+n])<<8 | uint16(m.mem[addr+3+n])))
	d.sorted = c > 0
	if c < 0 {
		c = -c
	}
	d.count = c
	d.entries = addr + 4 + n
	keyLen := 4
	if m.version >= 4 {
		keyLen = 6
	}
	if c > 0 && d.entLen < keyLen {
		return d, fmt.Errorf("dictionary at %#x has entries of %d bytes, shorter than the %d-byte key", addr, d.entLen, keyLen)
	}
	if d.entries+c*d.entLen > len(m.mem) {
		return d, fmt.Errorf("dictionary at %#x (%d entries of %d bytes) runs past the end of memory", addr, c, d.entLen)
	}
	return d, nil
}

func (m *Machine) initDictionary() error {
	d, err := m.readDictionary(m.hdr.Dictionary)
	if err != nil {
		return fmt.Errorf("zvm: header %w", err)
	}
	m.dict = d
	return nil
}

// lookup returns the address of the entry whose key is key, or 0.
func (m *Machine) lookup(d *dictionary, key [6]byte) int {
	kl := 4
	if m.version >= 4 {
		kl = 6
	}
	cmp := func(e int) int {
		for i := 0; i < kl; i++ {
			a, b := m.mem[e+i], key[i]
			if a != b {
				if a < b {
					return -1
				}
				return 1
			}
		}
		return 0
	}
	if d.sorted {
		lo, hi := 0, d.count-1
		for lo <= hi {
			mid := (lo + hi) / 2
			e := d.entries + mid*d.entLen
			switch c := cmp(e); {
			case c == 0:
				return e
			case c < 0:
				lo = mid + 1
			default:
				hi = mid - 1
			}
		}
		return 0
	}
	for i := 0; i < d.count; i++ {
		e := d.entries + i*d.entLen
		if cmp(e) == 0 {
			return e
		}
	}
	return 0
}

// tokenise splits the text in the text buffer into words and writes the
// parse buffer (§13.6, §15 tokenise). With skip, entries of unknown words
// are left as they are.
func (m *Machine) tokenise(text, parse int, d *dictionary, skip bool) {
	var start, n int
	if m.version >= 5 {
		start = text + 2
		n = int(m.rb(text + 1))
	} else {
		start = text + 1
		n = 0
		for n < 255 && m.rb(start+n) != 0 && m.err == nil {
			n++
		}
	}
	if start+n > len(m.mem) {
		m.fault("text buffer at %#x runs past the end of memory", text)
		return
	}
	maxWords := int(m.rb(parse))
	if m.err != nil {
		return
	}
	isSep := func(c byte) bool {
		for _, s := range d.seps {
			if s == c {
				return true
			}
		}
		return false
	}
	words := 0
	buf := make([]uint16, 0, 16)
	emit := func(pos, l int) {
		if words >= maxWords {
			return
		}
		buf = buf[:0]
		for i := 0; i < l; i++ {
			buf = append(buf, uint16(m.mem[start+pos+i]))
		}
		e := m.lookup(d, m.encodeWord(buf))
		slot := parse + 2 + 4*words
		words++
		if e == 0 && skip {
			return
		}
		m.ww(slot, uint16(e))
		m.wb(slot+2, byte(l))
		m.wb(slot+3, byte(pos+start-text))
	}
	for i := 0; i < n; {
		c := m.mem[start+i]
		switch {
		case c == ' ':
			i++
		case isSep(c):
			emit(i, 1)
			i++
		default:
			j := i
			for j < n && m.mem[start+j] != ' ' && !isSep(m.mem[start+j]) {
				j++
			}
			emit(i, j-i)
			i = j
		}
	}
	m.wb(parse+1, byte(words))
}

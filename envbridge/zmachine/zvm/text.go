package zvm

import (
	"fmt"
	"strings"
)

// Text: Z-characters, alphabets, abbreviations and ZSCII (§3), and the
// Unicode translation table (§3.8.5).

var defaultAlphabets = [3]string{
	"abcdefghijklmnopqrstuvwxyz",
	"ABCDEFGHIJKLMNOPQRSTUVWXYZ",
	" \n0123456789.,!?_#'\"/\\-:()", // positions 0 and 1 are the escape and newline (§3.5.3)
}

// defaultUnicode is the default translation of ZSCII 155-223 (§3.8.5.3, Table 1).
var defaultUnicode = []rune("äöüÄÖÜß»«ëïÿËÏáéíóúýÁÉÍÓÚÝàèìòùÀÈÌÒÙâêîôûÂÊÎÔÛåÅøØãñõÃÑÕæÆçÇþðÞÐ£œŒ¡¿")

func (m *Machine) initText() error {
	h := m.hdr
	m.abbrevs = h.Abbreviations
	for a := 0; a < 3; a++ {
		for i := 0; i < 26; i++ {
			m.alphabet[a][i] = defaultAlphabets[a][i]
		}
	}
	if m.version >= 5 && h.AlphabetTable != 0 {
		for a := 0; a < 3; a++ {
			for i := 0; i < 26; i++ {
				m.alphabet[a][i] = m.mem[h.AlphabetTable+26*a+i]
			}
		}
		m.alphabet[2][0], m.alphabet[2][1] = ' ', '\n' // escape and newline stay (§3.5.5.1)
	}
	m.unicode = defaultUnicode
	if m.version >= 5 && h.ExtensionTable != 0 {
		n := int(m.mem[h.ExtensionTable])<<8 | int(m.mem[h.ExtensionTable+1])
		if n >= 3 {
			a := h.ExtensionTable + 6
			if a+1 < len(m.mem) {
				ut := int(m.mem[a])<<8 | int(m.mem[a+1])
				if ut != 0 {
					if ut >= len(m.mem) {
						return fmt.Errorf("zvm: Unicode translation table address %#x is outside memory", ut)
					}
					cnt := int(m.mem[ut])
					if ut+1+2*cnt > len(m.mem) {
						return fmt.Errorf("zvm: Unicode translation table at %#x (%d entries) runs past the end of memory", ut, cnt)
					}
					t := make([]rune, cnt)
					for i := range t {
						t[i] = rune(int(m.mem[ut+1+2*i])<<8 | int(m.mem[ut+2+2*i]))
					}
					m.unicode = t
				}
			}
		}
	}
	return nil
}

// zsciiRune converts an output ZSCII code to a rune (§3.8); 0 for codes that
// print nothing.
func (m *Machine) zsciiRune(c uint16) rune {
	switch {
	case c == 13 || c == 10:
		return '\n'
	case c >= 32 && c <= 126:
		return rune(c)
	case c >= 155 && c <= 251:
		if i := int(c) - 155; i < len(m.unicode) {
			return m.unicode[i]
		}
		return '?'
	case c == 9:
		return ' ' // v6 tab; harmless elsewhere
	case c == 11:
		return ' ' // sentence space
	}
	return 0
}

// runeZscii converts an input rune to ZSCII; 0 if it has none.
func (m *Machine) runeZscii(r rune) uint16 {
	switch {
	case r == '\n' || r == '\r':
		return 13
	case r >= 32 && r <= 126:
		return uint16(r)
	}
	for i, u := range m.unicode {
		if u == r {
			return uint16(155 + i)
		}
	}
	return 0
}

// decode reads the Z-string at addr and returns its text and the address
// just after it. depth guards abbreviations within abbreviations, which
// the standard forbids (§3.3.1).
func (m *Machine) decode(addr int, depth int) (string, int) {
	var sb strings.Builder
	m.decodeBudget = maxDecodeWords
	end := m.decodeTo(&sb, addr, depth)
	return sb.String(), end
}

// maxDecodeWords bounds the words one string decodes, abbreviations
// included: a corrupt story could otherwise expand a string of abbreviations
// of endless strings for ever.
const maxDecodeWords = 1 << 16

func (m *Machine) decodeTo(sb *strings.Builder, addr int, depth int) int {
	alpha := 0   // current alphabet for the next character
	abbrev := -1 // pending abbreviation bank (1-3), -1 none
	esc := 0     // 0 none; 1 waiting for the high 5 bits; 2 waiting for the low
	escHi := 0
	for n := 0; ; n++ {
		if addr < 0 || addr+1 >= len(m.mem) {
			m.fault("string at %#x runs outside memory", addr)
			return addr
		}
		if m.decodeBudget--; m.decodeBudget < 0 || n > 1<<16 {
			m.fault("string at %#x has no end", addr)
			return addr
		}
		w := int(m.mem[addr])<<8 | int(m.mem[addr+1])
		addr += 2
		for shift := 10; shift >= 0; shift -= 5 {
			z := (w >> shift) & 31
			switch {
			case abbrev >= 0:
				idx := 32*(abbrev-1) + z
				abbrev = -1
				if depth > 0 {
					m.fault("abbreviation inside an abbreviation")
					return addr
				}
				a := int(m.rw(m.abbrevs + 2*idx))
				m.decodeTo(sb, 2*a, depth+1)
				alpha = 0
			case esc == 1:
				escHi = z
				esc = 2
			case esc == 2:
				esc = 0
				if r := m.zsciiRune(uint16(escHi<<5 | z)); r != 0 {
					sb.WriteRune(r)
				}
				alpha = 0
			case z == 0:
				sb.WriteByte(' ')
				alpha = 0
			case z >= 1 && z <= 3:
				abbrev = z
			case z == 4:
				alpha = 1
			case z == 5:
				alpha = 2
			default:
				if alpha == 2 && z == 6 {
					esc = 1
				} else if alpha == 2 && z == 7 {
					sb.WriteByte('\n')
				} else {
					c := m.alphabet[alpha][z-6]
					if r := m.zsciiRune(uint16(c)); r != 0 {
						sb.WriteRune(r)
					}
				}
				alpha = 0
			}
		}
		if w&0x8000 != 0 {
			return addr
		}
	}
}

// decodeCached decodes a string of static or high memory once.
func (m *Machine) decodeCached(addr int) (string, int) {
	if addr < m.dyn {
		return m.decode(addr, 0)
	}
	if c, ok := m.strCache[addr]; ok {
		return c.s, addr + c.n
	}
	s, end := m.decode(addr, 0)
	if m.err == nil {
		m.strCache[addr] = cachedString{s, end - addr}
	}
	return s, end
}

type cachedString struct {
	s string
	n int // bytes of the encoded string
}

// encodeWord encodes up to the first 6 (v3) or 9 (v4+) ZSCII characters of
// word as a dictionary key: 4 or 6 bytes (§3.7, §13.3).
func (m *Machine) encodeWord(word []uint16) [6]byte {
	n := 6
	if m.version >= 4 {
		n = 9
	}
	zs := make([]byte, 0, 12)
	for _, c := range word {
		if len(zs) >= n {
			break
		}
		found := false
		for a := 0; a < 3 && !found; a++ {
			for i := 0; i < 26; i++ {
				if a == 2 && i < 2 {
					continue // escape and newline
				}
				if uint16(m.alphabet[a][i]) == c {
					if a > 0 {
						zs = append(zs, byte(3+a))
					}
					zs = append(zs, byte(6+i))
					found = true
					break
				}
			}
		}
		if !found {
			zs = append(zs, 5, 6, byte(c>>5)&31, byte(c)&31)
		}
	}
	for len(zs) < n {
		zs = append(zs, 5)
	}
	zs = zs[:n]
	var out [6]byte
	for i := 0; i < n/3; i++ {
		w := uint16(zs[3*i])<<10 | uint16(zs[3*i+1])<<5 | uint16(zs[3*i+2])
		if i == n/3-1 {
			w |= 0x8000
		}
		out[2*i], out[2*i+1] = byte(w>>8), byte(w)
	}
	return out
}

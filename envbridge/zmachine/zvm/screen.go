package zvm

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Output streams (§7) and the screen model (§8): the lower window's text
// goes to Output.Main whatever its style; the upper window is kept as a
// character grid so that Output.Status shows what the game drew there.

type mem3 struct {
	table int // address of the table's length word
	n     int // characters written so far
}

type screen struct {
	version   int
	width     int
	main      []byte // UTF-8 text of the lower window since the last Output
	window    int    // 0 lower, 1 upper
	upperH    int    // upper window height in lines
	grid      [][]rune
	curRow    int // upper window cursor, 0-based
	curCol    int
	st3       status3 // version 3's status line as last drawn
	st3Cached status3 // what status3 was formatted from
	status3   string  // version 3's status line, formatted

	stream1 bool
	stream2 bool
	mem3    []mem3 // stream 3 tables, innermost last (at most 16, §7.1.2.1.1)
	style   int
	buffer  bool
	font    int

	// dropStyled leaves bold and italic text out of Main, as Debian's
	// dfrotz 2.54 does: only the differential tests set it.
	dropStyled bool
}

func (s *screen) reset(version, width int) {
	s.version, s.width = version, width
	s.main = s.main[:0]
	s.window, s.upperH, s.curRow, s.curCol = 0, 0, 0, 0
	s.grid = s.grid[:0]
	s.status3, s.st3, s.st3Cached = "", status3{}, status3{}
	s.stream1, s.stream2 = true, false
	s.mem3 = s.mem3[:0]
	s.style, s.buffer, s.font = 0, true, 1
}

// cloneInto is a copy of s that shares nothing with it, its grid written
// into the rows of grid (a grid no one else holds, such as the machine's own
// undo slot's) where they fit; grid may be nil.
func (s *screen) cloneInto(grid [][]rune) screen {
	c := *s
	c.main = nil
	c.grid = grid[:0]
	for i, r := range s.grid {
		if i < cap(grid) {
			c.grid = append(c.grid, append(grid[:cap(grid)][i][:0], r...))
		} else {
			c.grid = append(c.grid, append([]rune(nil), r...))
		}
	}
	c.mem3 = nil
	if len(s.mem3) > 0 {
		c.mem3 = append([]mem3(nil), s.mem3...)
	}
	return c
}

func (s *screen) setUpper(h int) {
	if h < 0 {
		h = 0
	}
	if h > 255 {
		h = 255
	}
	for len(s.grid) < h {
		row := make([]rune, s.width)
		for i := range row {
			row[i] = ' '
		}
		s.grid = append(s.grid, row)
	}
	s.grid = s.grid[:h]
	s.upperH = h
	if s.curRow >= h {
		s.curRow, s.curCol = 0, 0
	}
}

// reach makes row part of the upper window's grid when a game sets its
// cursor below the split (Inform's DoMenu splits for its heading and draws
// the entries under it; on Frotz's screen they show): the grid grows, the
// split stays, and the next split_window cuts the grid again.
func (s *screen) reach(row int) {
	if row < len(s.grid) || row >= 255 {
		return
	}
	h := s.upperH
	s.setUpper(row + 1)
	s.upperH = h
}

func (s *screen) clearUpper() {
	for _, row := range s.grid {
		for i := range row {
			row[i] = ' '
		}
	}
	s.curRow, s.curCol = 0, 0
}

func (s *screen) putUpper(r rune) {
	if r == '\n' {
		s.curRow++
		s.curCol = 0
		return
	}
	if s.curRow < 0 || s.curRow >= len(s.grid) || s.curCol >= s.width {
		return // off the window: clipped
	}
	s.grid[s.curRow][s.curCol] = r
	s.curCol++
}

// maxOutput bounds the text waiting in the output buffer (a runaway game
// printing in a loop would otherwise fill memory before the budget stops
// it); Output empties the buffer.
const maxOutput = 8 << 20

// printZ sends one output ZSCII character to the active streams.
func (m *Machine) printZ(c uint16) {
	s := &m.screen
	if n := len(s.mem3); n > 0 {
		t := &s.mem3[n-1]
		if c == 10 {
			c = 13
		}
		m.wb(t.table+2+t.n, byte(c))
		t.n++
		return
	}
	if !s.stream1 {
		return
	}
	r := m.zsciiRune(c)
	if r == 0 {
		return
	}
	m.putRune(r)
}

func (m *Machine) putRune(r rune) {
	s := &m.screen
	if s.window == 1 {
		s.putUpper(r)
		return
	}
	if s.dropStyled && s.style&6 != 0 {
		return
	}
	if len(s.main) >= maxOutput {
		m.fault("more than %d bytes of output without input", maxOutput)
		return
	}
	if r < 0x80 {
		s.main = append(s.main, byte(r))
	} else {
		s.main = fmt.Appendf(s.main, "%c", r)
	}
}

// printString prints decoded text (already Unicode) to the active streams.
func (m *Machine) printString(str string) {
	s := &m.screen
	if len(s.mem3) == 0 && s.stream1 && s.window == 0 && !(s.dropStyled && s.style&6 != 0) {
		if len(s.main)+len(str) > maxOutput {
			m.fault("more than %d bytes of output without input", maxOutput)
			return
		}
		s.main = append(s.main, str...)
		return
	}
	for _, r := range str {
		if len(s.mem3) > 0 {
			c := m.runeZscii(r)
			if c == 0 {
				c = '?'
			}
			m.printZ(c)
			continue
		}
		if s.stream1 {
			m.putRune(r)
		}
	}
}

func (m *Machine) outputStream(n int, table int) {
	s := &m.screen
	switch n {
	case 1:
		s.stream1 = true
	case -1:
		s.stream1 = false
	case 2:
		s.stream2 = true
		m.mem[0x11] |= 1
	case -2:
		s.stream2 = false
		m.mem[0x11] &^= 1
	case 3:
		if len(s.mem3) >= 16 {
			m.fault("output stream 3 nested more than 16 deep")
			return
		}
		if table+1 >= m.dyn {
			m.fault("output stream 3 table %#x is outside dynamic memory", table)
			return
		}
		s.mem3 = append(s.mem3, mem3{table: table})
	case -3:
		if k := len(s.mem3); k > 0 {
			t := s.mem3[k-1]
			s.mem3 = s.mem3[:k-1]
			m.ww(t.table, uint16(t.n))
		}
	case 4, -4, 0:
		// stream 4 (the player's input as a script) is not kept
	default:
		m.fault("output_stream %d does not exist", n)
	}
}

// renderStatusV3 draws version 3's status line (§8.2) from the globals:
// it records them, and statusLines formats the line when it is asked for.
func (m *Machine) renderStatusV3() {
	s := &m.screen
	s.st3 = status3{
		drawn: true,
		loc:   int(m.Global(0)),
		a:     int(int16(m.Global(1))),
		b:     int(int16(m.Global(2))),
		time:  m.mem[1]&0x02 != 0,
	}
}

// status3 is what version 3's status line showed when it was drawn.
type status3 struct {
	drawn bool
	loc   int
	a, b  int
	time  bool
}

// formatStatusV3 is the line " Location    Score: s  Moves: m" (or
// "Time: h:mm AM") at the screen's width.
func (m *Machine) formatStatusV3(st status3) string {
	var loc string
	if st.loc >= 1 && st.loc <= m.numObjects {
		err, stop := m.err, m.stop
		loc = m.objName(st.loc)
		m.err, m.stop = err, stop
	}
	right := make([]byte, 0, 32)
	if st.time {
		h, ampm := st.a, "AM"
		if h >= 12 {
			ampm = "PM"
		}
		if h%12 == 0 {
			h = 12
		} else {
			h %= 12
		}
		right = append(right, "Time: "...)
		right = strconv.AppendInt(right, int64(h), 10)
		right = append(right, ':')
		if st.b < 10 && st.b >= 0 {
			right = append(right, '0')
		}
		right = strconv.AppendInt(right, int64(st.b), 10)
		right = append(right, ' ')
		right = append(right, ampm...)
	} else {
		right = append(right, "Score: "...)
		right = strconv.AppendInt(right, int64(st.a), 10)
		right = append(right, "  Moves: "...)
		right = strconv.AppendInt(right, int64(st.b), 10)
	}
	pad := m.screen.width - 1 - utf8.RuneCountInString(loc) - len(right) - 1
	if pad < 1 {
		pad = 1
	}
	line := make([]byte, 0, m.screen.width+8)
	line = append(line, ' ')
	line = append(line, loc...)
	for ; pad > 0; pad-- {
		line = append(line, ' ')
	}
	line = append(line, right...)
	return string(line)
}

func (m *Machine) statusLines() []string {
	s := &m.screen
	var out []string
	if s.version <= 3 && s.st3.drawn {
		if s.st3 != s.st3Cached || s.status3 == "" {
			s.status3, s.st3Cached = m.formatStatusV3(s.st3), s.st3
		}
		out = append(out, s.status3)
	}
	for _, row := range s.grid {
		out = append(out, strings.TrimRight(string(row), " "))
	}
	return out
}

package zvm

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// Quetzal (Quetzal 1.4): FORM IFZS with IFhd, CMem and Stks chunks.
//
// The PC saved in IFhd is, when the machine waits for input, the address of
// the waiting read or read_char instruction: RestoreQuetzal puts the machine
// back before it and executes it again, so the machine waits as it did.
// Files from other interpreters (whose PC points after a save instruction)
// are not supported.

// SaveQuetzal returns the machine state as a Quetzal file. It fails unless
// the machine waits for input.
func (m *Machine) SaveQuetzal() ([]byte, error) {
	if !m.waiting || m.err != nil || m.halted {
		return nil, errors.New("zvm: SaveQuetzal: the machine must be waiting for input")
	}
	var body bytes.Buffer
	body.WriteString("IFZS")
	// IFhd
	var hd [13]byte
	copy(hd[0:2], m.story[2:4])
	copy(hd[2:8], m.story[0x12:0x18])
	copy(hd[8:10], m.story[0x1c:0x1e])
	pc := m.readPC
	hd[10], hd[11], hd[12] = byte(pc>>16), byte(pc>>8), byte(pc)
	chunk(&body, "IFhd", hd[:])
	// CMem: dynamic memory XOR the story's, zero runs as 0, n-1
	var cm []byte
	for i := 0; i < m.dyn; {
		x := m.mem[i] ^ m.story[i]
		if x != 0 {
			cm = append(cm, x)
			i++
			continue
		}
		run := 0
		for i < m.dyn && m.mem[i] == m.story[i] && run < 256 {
			run++
			i++
		}
		cm = append(cm, 0, byte(run-1))
	}
	chunk(&body, "CMem", cm)
	// Stks
	var st []byte
	for i, f := range m.frames {
		evalStart := f.base + f.nLocals
		evalEnd := len(m.stack)
		if i+1 < len(m.frames) {
			evalEnd = m.frames[i+1].base
		}
		flags := byte(f.nLocals)
		store := byte(0)
		if f.store < 0 {
			flags |= 0x10
		} else {
			store = byte(f.store)
		}
		if i == 0 {
			flags, store = 0, 0
		}
		rp := f.retPC
		st = append(st, byte(rp>>16), byte(rp>>8), byte(rp), flags, store, byte(1<<f.nArgs-1))
		n := evalEnd - evalStart
		st = append(st, byte(n>>8), byte(n))
		for _, w := range m.stack[f.base:evalEnd] {
			st = append(st, byte(w>>8), byte(w))
		}
	}
	chunk(&body, "Stks", st)
	var out bytes.Buffer
	out.WriteString("FORM")
	binary.Write(&out, binary.BigEndian, uint32(body.Len()))
	out.Write(body.Bytes())
	return out.Bytes(), nil
}

func chunk(b *bytes.Buffer, id string, data []byte) {
	b.WriteString(id)
	binary.Write(b, binary.BigEndian, uint32(len(data)))
	b.Write(data)
	if len(data)%2 == 1 {
		b.WriteByte(0)
	}
}

// RestoreQuetzal restores a state saved by SaveQuetzal from this story
// (IFhd must match the story's release, serial and checksum). On error the
// machine is unchanged.
func (m *Machine) RestoreQuetzal(b []byte) error {
	if len(b) < 12 || string(b[0:4]) != "FORM" || string(b[8:12]) != "IFZS" {
		return errors.New("zvm: Quetzal: not a FORM IFZS file")
	}
	n := int(binary.BigEndian.Uint32(b[4:8]))
	if n+8 > len(b) || n < 4 {
		return fmt.Errorf("zvm: Quetzal: FORM length %d does not match the file's %d bytes", n, len(b))
	}
	b = b[12 : 8+n]
	var hd, cmem, umem, stks []byte
	for len(b) >= 8 {
		id := string(b[0:4])
		l := int(binary.BigEndian.Uint32(b[4:8]))
		if l < 0 || 8+l > len(b) {
			return fmt.Errorf("zvm: Quetzal: chunk %q of %d bytes runs past the end", id, l)
		}
		data := b[8 : 8+l]
		switch id {
		case "IFhd":
			hd = data
		case "CMem":
			cmem = data
		case "UMem":
			umem = data
		case "Stks":
			stks = data
		}
		adv := 8 + l + l%2
		if adv > len(b) {
			break
		}
		b = b[adv:]
	}
	if len(hd) < 13 {
		return errors.New("zvm: Quetzal: missing or short IFhd chunk")
	}
	if !bytes.Equal(hd[0:2], m.story[2:4]) || !bytes.Equal(hd[2:8], m.story[0x12:0x18]) || !bytes.Equal(hd[8:10], m.story[0x1c:0x1e]) {
		return errors.New("zvm: Quetzal: the file was saved from another story (IFhd release/serial/checksum differ)")
	}
	pc := int(hd[10])<<16 | int(hd[11])<<8 | int(hd[12])
	if pc >= len(m.mem) {
		return fmt.Errorf("zvm: Quetzal: PC %#x is outside memory", pc)
	}
	dyn := make([]byte, m.dyn)
	switch {
	case cmem != nil:
		i := 0
		for j := 0; j < len(cmem); j++ {
			if cmem[j] != 0 {
				if i >= m.dyn {
					return errors.New("zvm: Quetzal: CMem longer than dynamic memory")
				}
				dyn[i] = cmem[j] ^ m.story[i]
				i++
				continue
			}
			if j+1 >= len(cmem) {
				return errors.New("zvm: Quetzal: CMem ends inside a run of zeros")
			}
			j++
			run := int(cmem[j]) + 1
			if i+run > m.dyn {
				return errors.New("zvm: Quetzal: CMem longer than dynamic memory")
			}
			copy(dyn[i:i+run], m.story[i:i+run])
			i += run
		}
		copy(dyn[i:], m.story[i:m.dyn])
	case umem != nil:
		if len(umem) != m.dyn {
			return fmt.Errorf("zvm: Quetzal: UMem of %d bytes, dynamic memory is %d", len(umem), m.dyn)
		}
		copy(dyn, umem)
	default:
		return errors.New("zvm: Quetzal: no CMem or UMem chunk")
	}
	if stks == nil {
		return errors.New("zvm: Quetzal: no Stks chunk")
	}
	var frames []frame
	var stack []uint16
	for k := 0; len(stks) > 0; k++ {
		if len(stks) < 8 {
			return errors.New("zvm: Quetzal: truncated stack frame")
		}
		rp := int(stks[0])<<16 | int(stks[1])<<8 | int(stks[2])
		flags, store, args := stks[3], int(stks[4]), stks[5]
		ne := int(stks[6])<<8 | int(stks[7])
		nl := int(flags & 15)
		if 8+2*(nl+ne) > len(stks) {
			return errors.New("zvm: Quetzal: truncated stack frame")
		}
		f := frame{retPC: rp, store: store, base: len(stack), nLocals: nl}
		if flags&0x10 != 0 || k == 0 {
			f.store = -1
		}
		for args&1 != 0 {
			f.nArgs++
			args >>= 1
		}
		for i := 0; i < nl+ne; i++ {
			stack = append(stack, uint16(stks[8+2*i])<<8|uint16(stks[9+2*i]))
		}
		frames = append(frames, f)
		stks = stks[8+2*(nl+ne):]
	}
	if len(frames) == 0 {
		return errors.New("zvm: Quetzal: empty stack")
	}
	if len(stack) >= maxStack {
		return fmt.Errorf("zvm: Quetzal: %d stack words, more than the %d this interpreter holds", len(stack), maxStack)
	}
	if m.version != 6 && (frames[0].nLocals != 0) {
		return errors.New("zvm: Quetzal: first frame has locals (not a dummy frame)")
	}
	// Keep header fields the interpreter owns (§6.1.2 of Quetzal: the
	// game's flags 2 transcripting and fixed-pitch bits survive).
	keep := m.rw(0x10) & 3
	prev, prevErr, prevStop := m.snapshot(), m.err, m.stop
	undo := func(err error) error {
		m.restoreState(prev, true)
		m.err, m.stop = prevErr, prevStop
		return err
	}
	copy(m.mem[:m.dyn], dyn)
	m.stack = append(m.stack[:0], stack...)
	m.frames = append(m.frames[:0], frames...)
	m.syncFrame()
	m.pc = pc
	m.setHeaderFields(keep)
	m.err, m.halted, m.waiting, m.stop = nil, false, false, false
	// Execute the read instruction at pc again so that the machine waits
	// as it did when it was saved.
	saved := m.opt.Budget
	m.opt.Budget = 1
	_, err := m.Run()
	m.opt.Budget = saved
	switch {
	case err == ErrBudget || (err == nil && !m.waiting):
		return undo(fmt.Errorf("zvm: Quetzal: PC %#x is not a read instruction", pc))
	case err != nil:
		return undo(fmt.Errorf("zvm: Quetzal: the restored state does not run: %w", err))
	}
	m.screen.main = m.screen.main[:0]
	return nil
}

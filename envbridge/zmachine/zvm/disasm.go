package zvm

import (
	"fmt"
	"strings"
)

// Instruction is one decoded instruction, as Disassemble reads it.
type Instruction struct {
	Addr, Next int      // its address and the address of the next one
	Opcode     string   // count and number: "2OP:1", "EXT:9"
	Name       string   // the Standard's name ("je"), "" if the version has no such opcode
	Operands   []string // "#0x1f" a constant, "sp" the stack, "L01" a local, "G10" a global
	Store      string   // the store variable (same notation), "" if it stores nothing
	Branch     string   // "?0x4f12" or "?~rtrue" (~: taken when false), "" if it does not branch
	Text       string   // the string of print and print_ret
}

// String is one line of a listing:
// "0x4f05 call_vs #0x2a39 #0x8010 #0xffff -> sp".
func (in Instruction) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%#x ", in.Addr)
	if in.Name != "" {
		b.WriteString(in.Name)
	} else {
		b.WriteString("illegal " + in.Opcode)
	}
	for _, o := range in.Operands {
		b.WriteString(" " + o)
	}
	if in.Store != "" {
		b.WriteString(" -> " + in.Store)
	}
	if in.Branch != "" {
		b.WriteString(" " + in.Branch)
	}
	if in.Text != "" {
		fmt.Fprintf(&b, " %q", in.Text)
	}
	return b.String()
}

// Disassemble decodes the instruction at addr (§4) and names its opcode by
// the opcode table for the story's version. It changes nothing. It fails
// if the instruction runs past the end of memory; an opcode the version
// does not have decodes with an empty Name and no store or branch.
func (m *Machine) Disassemble(addr int) (Instruction, error) {
	in := Instruction{Addr: addr}
	p := addr
	var err error
	next := func() byte {
		if p >= len(m.mem) || p < 0 {
			if err == nil {
				err = fmt.Errorf("zvm: disassemble %#x: instruction runs past the end of memory (%#x)", addr, len(m.mem))
			}
			return 0
		}
		p++
		return m.mem[p-1]
	}
	op := next()
	if err != nil {
		return in, err
	}
	var c opCount
	var num int
	var types []byte
	typesByte := func(n int) {
		for ; n > 0; n-- {
			tb := next()
			for i := 0; i < 4; i++ {
				types = append(types, (tb>>(6-2*i))&3)
			}
		}
	}
	switch {
	case op < 0x80:
		c, num = op2, int(op&0x1f)
		types = []byte{opSmall, opSmall}
		if op&0x40 != 0 {
			types[0] = opVar
		}
		if op&0x20 != 0 {
			types[1] = opVar
		}
	case op < 0xb0:
		c, num = op1, int(op&0x0f)
		types = []byte{(op >> 4) & 3}
	case op < 0xc0 && (op != 0xbe || m.version < 5):
		c, num = op0, int(op&0x0f)
	case op == 0xbe:
		c, num = opE, int(next())
		typesByte(1)
	default:
		c, num = opV, int(op&0x1f)
		if op < 0xe0 {
			c = op2
		}
		n := 1
		if op == 0xec || op == 0xfa { // call_vs2, call_vn2
			n = 2
		}
		typesByte(n)
	}
	in.Opcode = fmt.Sprintf("%s:%d", c, num)
	for _, t := range types {
		switch t {
		case opLarge:
			hi := next()
			in.Operands = append(in.Operands, fmt.Sprintf("#0x%04x", uint16(hi)<<8|uint16(next())))
		case opSmall:
			in.Operands = append(in.Operands, fmt.Sprintf("#0x%02x", next()))
		case opVar:
			in.Operands = append(in.Operands, varName(next()))
		}
		if t == opOmitted {
			break
		}
	}
	d := m.lookupOp(c, num)
	if d != nil {
		in.Name = d.name
		if d.name == "jump" && types[0] != opVar && len(in.Operands) == 1 {
			// the target, as for branches (§15: jump's operand is an offset)
			var off uint16
			fmt.Sscanf(in.Operands[0], "#0x%x", &off)
			in.Operands[0] = fmt.Sprintf("%#x", p+int(int16(off))-2)
		}
		if d.flags&fStore != 0 {
			in.Store = varName(next())
		}
		if d.flags&fBranch != 0 {
			b := next()
			off := int(b & 0x3f)
			if b&0x40 == 0 {
				off = off<<8 | int(next())
				if off&0x2000 != 0 {
					off -= 0x4000
				}
			}
			if b&0x80 == 0 {
				in.Branch = "?~"
			} else {
				in.Branch = "?"
			}
			switch off {
			case 0:
				in.Branch += "rfalse"
			case 1:
				in.Branch += "rtrue"
			default:
				in.Branch += fmt.Sprintf("%#x", p+off-2)
			}
		}
		if d.flags&fText != 0 && err == nil {
			// decode reports a bad string as a fault; keep the machine's
			// own error state as it was.
			errWas, stopWas := m.err, m.stop
			m.err = nil
			s, end := m.decode(p, 0)
			if m.err != nil {
				err = fmt.Errorf("zvm: disassemble %#x: %w", addr, m.err)
			}
			m.err, m.stop = errWas, stopWas
			in.Text, p = s, end
		}
	}
	in.Next = p
	if err != nil {
		return in, err
	}
	return in, nil
}

// varName names variable v: the stack, a local (1-15) or a global (16-255).
func varName(v byte) string {
	switch {
	case v == 0:
		return "sp"
	case v < 16:
		return fmt.Sprintf("L%02d", v)
	default:
		return fmt.Sprintf("G%02x", v-16)
	}
}

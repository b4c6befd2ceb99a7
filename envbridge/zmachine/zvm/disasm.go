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
	r := &reader{m: m, addr: addr, p: addr}
	in := Instruction{Addr: addr}
	c, num, types := r.head()
	in.Opcode = fmt.Sprintf("%s:%d", c, num)
	in.Operands = r.operands(types)
	if d := m.lookupOp(c, num); d != nil {
		in.Name = d.name
		if d.name == "jump" && len(in.Operands) == 1 && types[0] != opVar {
			in.Operands[0] = r.jumpTarget(in.Operands[0])
		}
		if d.flags&fStore != 0 {
			in.Store = varName(r.byte())
		}
		if d.flags&fBranch != 0 {
			in.Branch = r.branch()
		}
		if d.flags&fText != 0 && r.err == nil {
			in.Text = r.text()
		}
	}
	in.Next = r.p
	return in, r.err
}

// reader reads one instruction for Disassemble; the first read past the
// end of memory sets err (later reads give zeros).
type reader struct {
	m       *Machine
	addr, p int
	err     error
}

func (r *reader) byte() byte {
	if r.p < 0 || r.p >= len(r.m.mem) {
		if r.err == nil {
			r.err = fmt.Errorf("zvm: disassemble %#x: instruction runs past the end of memory (%#x)", r.addr, len(r.m.mem))
		}
		return 0
	}
	r.p++
	return r.m.mem[r.p-1]
}

// head reads the opcode byte(s) and types byte(s) (§4.3, §4.4).
func (r *reader) head() (opCount, int, []byte) {
	op := r.byte()
	switch {
	case op < 0x80:
		types := []byte{opSmall, opSmall}
		if op&0x40 != 0 {
			types[0] = opVar
		}
		if op&0x20 != 0 {
			types[1] = opVar
		}
		return op2, int(op & 0x1f), types
	case op < 0xb0:
		return op1, int(op & 0x0f), []byte{(op >> 4) & 3}
	case op < 0xc0 && (op != 0xbe || r.m.version < 5):
		return op0, int(op & 0x0f), nil
	case op == 0xbe:
		num := int(r.byte())
		return opE, num, r.types(1)
	case op == 0xec || op == 0xfa: // call_vs2, call_vn2: two types bytes
		return opV, int(op & 0x1f), r.types(2)
	case op < 0xe0:
		return op2, int(op & 0x1f), r.types(1)
	default:
		return opV, int(op & 0x1f), r.types(1)
	}
}

func (r *reader) types(bytes int) []byte {
	var t []byte
	for ; bytes > 0; bytes-- {
		tb := r.byte()
		for i := 0; i < 4; i++ {
			t = append(t, (tb>>(6-2*i))&3)
		}
	}
	return t
}

// operands reads operands of the given types up to the first omitted one.
func (r *reader) operands(types []byte) []string {
	var ops []string
	for _, t := range types {
		switch t {
		case opLarge:
			hi := r.byte()
			ops = append(ops, fmt.Sprintf("#0x%04x", uint16(hi)<<8|uint16(r.byte())))
		case opSmall:
			ops = append(ops, fmt.Sprintf("#0x%02x", r.byte()))
		case opVar:
			ops = append(ops, varName(r.byte()))
		default:
			return ops
		}
	}
	return ops
}

// jumpTarget turns jump's constant offset into the address it jumps to.
func (r *reader) jumpTarget(op string) string {
	var off uint16
	fmt.Sscanf(op, "#0x%x", &off)
	return fmt.Sprintf("%#x", r.p+int(int16(off))-2)
}

// branch reads branch data (§4.7): "?0x4f12", "?~rfalse".
func (r *reader) branch() string {
	b := r.byte()
	off := int(b & 0x3f)
	if b&0x40 == 0 {
		off = off<<8 | int(r.byte())
		if off&0x2000 != 0 {
			off -= 0x4000
		}
	}
	s := "?"
	if b&0x80 == 0 {
		s = "?~"
	}
	switch off {
	case 0:
		return s + "rfalse"
	case 1:
		return s + "rtrue"
	}
	return s + fmt.Sprintf("%#x", r.p+off-2)
}

// text decodes the string of print and print_ret. decode reports a bad
// string as a fault; the machine's own error state is kept as it was.
func (r *reader) text() string {
	m := r.m
	errWas, stopWas := m.err, m.stop
	m.err = nil
	s, end := m.decode(r.p, 0)
	if m.err != nil {
		r.err = fmt.Errorf("zvm: disassemble %#x: %w", r.addr, m.err)
	}
	m.err, m.stop = errWas, stopWas
	r.p = end
	return s
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

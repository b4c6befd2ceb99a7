package zvm

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// listing disassembles from addr until an instruction named stop, at most
// limit instructions, each starting where the previous one ended.
func listing(t *testing.T, m *Machine, addr int, stop string, limit int) []Instruction {
	t.Helper()
	var out []Instruction
	for len(out) < limit {
		in, err := m.Disassemble(addr)
		if err != nil {
			t.Fatalf("Disassemble(%#x): %v", addr, err)
		}
		if in.Next <= addr {
			t.Fatalf("Disassemble(%#x): next %#x does not advance", addr, in.Next)
		}
		out = append(out, in)
		if in.Name == stop {
			break
		}
		addr = in.Next
	}
	return out
}

// TestDisassembleMain lists testdata/mini.inf's Main (version 3): the
// instructions Inform 6 compiles its statements to, in order, and checks
// each instruction's length against the instruction cache's decoder.
func TestDisassembleMain(t *testing.T) {
	m, err := Load(compile(t, "mini", 3), Options{Budget: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	// The entry point calls Main and quits (Inform's Main__).
	entry := listing(t, m, int(m.PeekWord(0x06)), "quit", 3)
	if len(entry) != 2 || entry[0].Name != "call" || entry[0].Store == "" {
		t.Fatalf("entry point: %v, want call ... -> x; quit", entry)
	}
	var main uint16
	if _, err := fmt.Sscanf(entry[0].Operands[0], "#0x%x", &main); err != nil {
		t.Fatal(err)
	}
	r := m.unpack(main, packedRoutine)
	r += 1 + 2*int(m.PeekByte(r)) // v3: the locals' initial values follow their count
	var names []string
	var text strings.Builder
	m.initCache()
	for _, in := range listing(t, m, r, "rtrue", 100) {
		names = append(names, in.Name)
		text.WriteString(in.String() + "\n")
		if k := m.decodeInst(in.Addr); k > 0 && m.insts[k].kind != kGeneric && int(m.insts[k].next) != in.Next {
			t.Errorf("%v: ends at %#x, the cache decodes it to end at %#x", in, in.Next, m.insts[k].next)
		}
	}
	t.Logf("Main:\n%s", text.String())
	want := []string{
		"print", "storeb", "storeb", // print "MINI^"; text_buf->0 = 80; parse_buf->0 = 10
		"jl", "inc", "print", "sread", // while (turns < 1000) { turns++; print "^>"; @sread
		"store", "loadb", "jl", "mul", "add", "loadw", // for (i = 0: i < parse_buf->1: ...) w = ...
		"je", "quit", // if (w == 'quit') quit
		"jz", "print_addr", "print", "jump", "print", // if (w) print (address) w, " "; else print "? "
		"inc", "jump", // i++
		"jin", "insert_obj", "jump", "insert_obj", // if (lamp in room) move ...
		"random", "print_num", "jump", "rtrue", // print random(6) }
	}
	if !slices.Equal(names, want) {
		t.Errorf("Main's opcodes:\n%v\nwant\n%v", names, want)
	}
	for _, line := range []string{`print "MINI\n"`, `print "\n>"`, "random #0x06 -> sp", "print_num sp", "print_addr L02", "loadw sp sp -> L02"} {
		if !strings.Contains(text.String(), line) {
			t.Errorf("listing lacks %q", line)
		}
	}
}

func TestDisassembleErrors(t *testing.T) {
	m, at := planted(t, compile(t, "mini", 5), []byte{0xb2, 0x00}) // print, a string with no end
	m.mem = m.mem[:at+2]
	if _, err := m.Disassemble(at); err == nil {
		t.Error("Disassemble of a string running off memory: no error")
	}
	if m.err != nil || m.stop {
		t.Errorf("Disassemble changed the machine's error state: %v", m.err)
	}
	if _, err := m.Disassemble(len(m.mem)); err == nil {
		t.Error("Disassemble past the end of memory: no error")
	}
	m2, at2 := planted(t, compile(t, "mini", 3), []byte{0xd9, 0x5f, 0x01, 0x02, 0x00})
	if in, err := m2.Disassemble(at2); err != nil || in.Name != "" || in.Opcode != "2OP:25" || !strings.Contains(in.String(), "illegal 2OP:25") {
		t.Errorf("call_2s in version 3: %v, %v; want an illegal 2OP:25", in, err)
	}
}

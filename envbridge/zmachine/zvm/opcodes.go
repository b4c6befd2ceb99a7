package zvm

import "fmt"

// The opcode table: every opcode zvm executes, once, with the facts the
// decoder, the generic path, the instruction cache and the disassembler
// need (§14, §15 of the Z-machine Standard 1.1). The generic path (step,
// and the cache for instructions without a fast kind) dispatches through
// it; fastKind reads an entry's fast kind, store and branch flags from it;
// faults and Disassemble name opcodes by it.

// opCount is an opcode's operand count class, which with its number
// identifies it (§4.3): 2OP opcodes are the same in long and variable form.
type opCount uint8

const (
	op0 opCount = iota
	op1
	op2
	opV
	opE
	numCounts
)

var countNames = [numCounts]string{"0OP", "1OP", "2OP", "VAR", "EXT"}

func (c opCount) String() string { return countNames[c] }

// opFlags: what follows an instruction's operands (§4.6, §4.7, §4.8).
type opFlags uint8

const (
	fStore  opFlags = 1 << iota // a store variable byte
	fBranch                     // branch data
	fText                       // an encoded string (print, print_ret)
)

// opcode is one row of the table.
type opcode struct {
	name   string // as the Standard names it
	count  opCount
	num    uint8 // the opcode number within its count (EXT: the second byte)
	flags  opFlags
	minV   uint8 // the versions zvm executes it in, minV..maxV
	maxV   uint8
	minOps uint8 // fewer operands are a fault naming the opcode
	fast   uint8 // the kind the instruction cache runs inline (icache.go), or kGeneric
	exec   func(m *Machine, n int)
	row    int16 // its index in opcodes (set by init), kept in a generic inst
}

func (d *opcode) String() string { return fmt.Sprintf("%s:%d (%s)", d.count, d.num, d.name) }

// Versions zvm loads are 3, 4, 5, 7 and 8; ranges below say 1..8 where the
// Standard's range starts earlier. Where zvm is more lenient than the
// Standard (VAR opcodes the Standard gives to version 4 or later run in
// every version; show_status is a no-op after version 3, as §15 asks,
// because Inform uses it as padding) the range says what zvm does.
var opcodes = []opcode{
	// 2OP (§14.1, long or variable form)
	{name: "je", count: op2, num: 1, flags: fBranch, minV: 1, maxV: 8, minOps: 2, fast: kJe, exec: opJe},
	{name: "jl", count: op2, num: 2, flags: fBranch, minV: 1, maxV: 8, minOps: 2, fast: kJl, exec: opJl},
	{name: "jg", count: op2, num: 3, flags: fBranch, minV: 1, maxV: 8, minOps: 2, fast: kJg, exec: opJg},
	{name: "dec_chk", count: op2, num: 4, flags: fBranch, minV: 1, maxV: 8, minOps: 2, fast: kDecChk, exec: opDecChk},
	{name: "inc_chk", count: op2, num: 5, flags: fBranch, minV: 1, maxV: 8, minOps: 2, fast: kIncChk, exec: opIncChk},
	{name: "jin", count: op2, num: 6, flags: fBranch, minV: 1, maxV: 8, minOps: 2, fast: kJin, exec: opJin},
	{name: "test", count: op2, num: 7, flags: fBranch, minV: 1, maxV: 8, minOps: 2, fast: kTest, exec: opTest},
	{name: "or", count: op2, num: 8, flags: fStore, minV: 1, maxV: 8, minOps: 2, fast: kOr, exec: opOr},
	{name: "and", count: op2, num: 9, flags: fStore, minV: 1, maxV: 8, minOps: 2, fast: kAnd, exec: opAnd},
	{name: "test_attr", count: op2, num: 10, flags: fBranch, minV: 1, maxV: 8, minOps: 2, fast: kTestAttr, exec: opTestAttr},
	{name: "set_attr", count: op2, num: 11, minV: 1, maxV: 8, minOps: 2, exec: opSetAttr},
	{name: "clear_attr", count: op2, num: 12, minV: 1, maxV: 8, minOps: 2, exec: opClearAttr},
	{name: "store", count: op2, num: 13, minV: 1, maxV: 8, minOps: 2, fast: kStore, exec: opStore},
	{name: "insert_obj", count: op2, num: 14, minV: 1, maxV: 8, minOps: 2, exec: opInsertObj},
	{name: "loadw", count: op2, num: 15, flags: fStore, minV: 1, maxV: 8, minOps: 2, fast: kLoadw, exec: opLoadw},
	{name: "loadb", count: op2, num: 16, flags: fStore, minV: 1, maxV: 8, minOps: 2, fast: kLoadb, exec: opLoadb},
	{name: "get_prop", count: op2, num: 17, flags: fStore, minV: 1, maxV: 8, minOps: 2, fast: kGetProp, exec: opGetProp},
	{name: "get_prop_addr", count: op2, num: 18, flags: fStore, minV: 1, maxV: 8, minOps: 2, fast: kGetPropAddr, exec: opGetPropAddr},
	{name: "get_next_prop", count: op2, num: 19, flags: fStore, minV: 1, maxV: 8, minOps: 2, exec: opGetNextProp},
	{name: "add", count: op2, num: 20, flags: fStore, minV: 1, maxV: 8, minOps: 2, fast: kAdd, exec: opAdd},
	{name: "sub", count: op2, num: 21, flags: fStore, minV: 1, maxV: 8, minOps: 2, fast: kSub, exec: opSub},
	{name: "mul", count: op2, num: 22, flags: fStore, minV: 1, maxV: 8, minOps: 2, fast: kMul, exec: opMul},
	{name: "div", count: op2, num: 23, flags: fStore, minV: 1, maxV: 8, minOps: 2, exec: opDiv},
	{name: "mod", count: op2, num: 24, flags: fStore, minV: 1, maxV: 8, minOps: 2, exec: opMod},
	{name: "call_2s", count: op2, num: 25, flags: fStore, minV: 4, maxV: 8, minOps: 2, fast: kCall, exec: opCallVs},
	{name: "call_2n", count: op2, num: 26, minV: 5, maxV: 8, minOps: 2, fast: kCall, exec: opCallVn},
	{name: "set_colour", count: op2, num: 27, minV: 5, maxV: 8, minOps: 2, exec: opIgnore},
	{name: "throw", count: op2, num: 28, minV: 5, maxV: 8, minOps: 2, exec: opThrow},

	// 1OP (§14.2, short form)
	{name: "jz", count: op1, num: 0, flags: fBranch, minV: 1, maxV: 8, minOps: 1, fast: kJz, exec: opJz},
	{name: "get_sibling", count: op1, num: 1, flags: fStore | fBranch, minV: 1, maxV: 8, minOps: 1, fast: kGetSibling, exec: opGetSibling},
	{name: "get_child", count: op1, num: 2, flags: fStore | fBranch, minV: 1, maxV: 8, minOps: 1, fast: kGetSibling, exec: opGetChild},
	{name: "get_parent", count: op1, num: 3, flags: fStore, minV: 1, maxV: 8, minOps: 1, fast: kGetParent, exec: opGetParent},
	{name: "get_prop_len", count: op1, num: 4, flags: fStore, minV: 1, maxV: 8, minOps: 1, fast: kGetPropLen, exec: opGetPropLen},
	{name: "inc", count: op1, num: 5, minV: 1, maxV: 8, minOps: 1, fast: kInc, exec: opInc},
	{name: "dec", count: op1, num: 6, minV: 1, maxV: 8, minOps: 1, fast: kDec, exec: opDec},
	{name: "print_addr", count: op1, num: 7, minV: 1, maxV: 8, minOps: 1, exec: opPrintAddr},
	{name: "call_1s", count: op1, num: 8, flags: fStore, minV: 4, maxV: 8, minOps: 1, fast: kCall, exec: opCall1s},
	{name: "remove_obj", count: op1, num: 9, minV: 1, maxV: 8, minOps: 1, exec: opRemoveObj},
	{name: "print_obj", count: op1, num: 10, minV: 1, maxV: 8, minOps: 1, exec: opPrintObj},
	{name: "ret", count: op1, num: 11, minV: 1, maxV: 8, minOps: 1, fast: kRet, exec: opRet},
	{name: "jump", count: op1, num: 12, minV: 1, maxV: 8, minOps: 1, fast: kJump, exec: opJump},
	{name: "print_paddr", count: op1, num: 13, minV: 1, maxV: 8, minOps: 1, exec: opPrintPaddr},
	{name: "load", count: op1, num: 14, flags: fStore, minV: 1, maxV: 8, minOps: 1, fast: kLoad, exec: opLoad},
	{name: "not", count: op1, num: 15, flags: fStore, minV: 1, maxV: 4, minOps: 1, fast: kNot, exec: opNot},
	{name: "call_1n", count: op1, num: 15, minV: 5, maxV: 8, minOps: 1, fast: kCall, exec: opCall1n},

	// 0OP (§14.3, short form)
	{name: "rtrue", count: op0, num: 0, minV: 1, maxV: 8, fast: kRtrue, exec: opRtrue},
	{name: "rfalse", count: op0, num: 1, minV: 1, maxV: 8, fast: kRfalse, exec: opRfalse},
	{name: "print", count: op0, num: 2, flags: fText, minV: 1, maxV: 8, exec: opPrint},
	{name: "print_ret", count: op0, num: 3, flags: fText, minV: 1, maxV: 8, exec: opPrintRet},
	{name: "nop", count: op0, num: 4, minV: 1, maxV: 8, exec: opIgnore},
	{name: "save", count: op0, num: 5, flags: fBranch, minV: 1, maxV: 3, exec: opSave},
	{name: "save", count: op0, num: 5, flags: fStore, minV: 4, maxV: 4, exec: opSave},
	{name: "restore", count: op0, num: 6, flags: fBranch, minV: 1, maxV: 3, exec: opRestore},
	{name: "restore", count: op0, num: 6, flags: fStore, minV: 4, maxV: 4, exec: opRestore},
	{name: "restart", count: op0, num: 7, minV: 1, maxV: 8, exec: opRestart},
	{name: "ret_popped", count: op0, num: 8, minV: 1, maxV: 8, fast: kRetPopped, exec: opRetPopped},
	{name: "pop", count: op0, num: 9, minV: 1, maxV: 4, exec: opPop},
	{name: "catch", count: op0, num: 9, flags: fStore, minV: 5, maxV: 8, exec: opCatch},
	{name: "quit", count: op0, num: 10, minV: 1, maxV: 8, exec: opQuit},
	{name: "new_line", count: op0, num: 11, minV: 1, maxV: 8, exec: opNewLine},
	{name: "show_status", count: op0, num: 12, minV: 1, maxV: 8, exec: opShowStatus},
	{name: "verify", count: op0, num: 13, flags: fBranch, minV: 1, maxV: 8, exec: opVerify},
	{name: "piracy", count: op0, num: 15, flags: fBranch, minV: 5, maxV: 8, exec: opPiracy},

	// VAR (§14.4, variable form)
	{name: "call", count: opV, num: 0, flags: fStore, minV: 1, maxV: 3, minOps: 1, fast: kCall, exec: opCallVs},
	{name: "call_vs", count: opV, num: 0, flags: fStore, minV: 4, maxV: 8, minOps: 1, fast: kCall, exec: opCallVs},
	{name: "storew", count: opV, num: 1, minV: 1, maxV: 8, minOps: 3, fast: kStorew, exec: opStorew},
	{name: "storeb", count: opV, num: 2, minV: 1, maxV: 8, minOps: 3, fast: kStoreb, exec: opStoreb},
	{name: "put_prop", count: opV, num: 3, minV: 1, maxV: 8, minOps: 3, exec: opPutProp},
	{name: "sread", count: opV, num: 4, minV: 1, maxV: 4, minOps: 1, exec: opRead},
	{name: "aread", count: opV, num: 4, flags: fStore, minV: 5, maxV: 8, minOps: 1, exec: opRead},
	{name: "print_char", count: opV, num: 5, minV: 1, maxV: 8, minOps: 1, exec: opPrintChar},
	{name: "print_num", count: opV, num: 6, minV: 1, maxV: 8, minOps: 1, exec: opPrintNum},
	{name: "random", count: opV, num: 7, flags: fStore, minV: 1, maxV: 8, minOps: 1, exec: opRandom},
	{name: "push", count: opV, num: 8, minV: 1, maxV: 8, minOps: 1, fast: kPush, exec: opPush},
	{name: "pull", count: opV, num: 9, minV: 1, maxV: 8, minOps: 1, exec: opPull},
	{name: "split_window", count: opV, num: 10, minV: 1, maxV: 8, minOps: 1, exec: opSplitWindow},
	{name: "set_window", count: opV, num: 11, minV: 1, maxV: 8, minOps: 1, exec: opSetWindow},
	{name: "call_vs2", count: opV, num: 12, flags: fStore, minV: 4, maxV: 8, minOps: 1, exec: opCallVs2},
	{name: "erase_window", count: opV, num: 13, minV: 1, maxV: 8, minOps: 1, exec: opEraseWindow},
	{name: "erase_line", count: opV, num: 14, minV: 1, maxV: 8, exec: opEraseLine},
	{name: "set_cursor", count: opV, num: 15, minV: 1, maxV: 8, minOps: 2, exec: opSetCursor},
	{name: "get_cursor", count: opV, num: 16, minV: 1, maxV: 8, minOps: 1, exec: opGetCursor},
	{name: "set_text_style", count: opV, num: 17, minV: 1, maxV: 8, exec: opSetTextStyle},
	{name: "buffer_mode", count: opV, num: 18, minV: 1, maxV: 8, exec: opBufferMode},
	{name: "output_stream", count: opV, num: 19, minV: 1, maxV: 8, minOps: 1, exec: opOutputStream},
	{name: "input_stream", count: opV, num: 20, minV: 1, maxV: 8, exec: opIgnore},
	{name: "sound_effect", count: opV, num: 21, minV: 1, maxV: 8, exec: opIgnore},
	{name: "read_char", count: opV, num: 22, flags: fStore, minV: 1, maxV: 8, minOps: 1, exec: opReadChar},
	{name: "scan_table", count: opV, num: 23, flags: fStore | fBranch, minV: 1, maxV: 8, minOps: 3, exec: opScanTable},
	{name: "not", count: opV, num: 24, flags: fStore, minV: 5, maxV: 8, minOps: 1, exec: opNot},
	{name: "call_vn", count: opV, num: 25, minV: 5, maxV: 8, minOps: 1, fast: kCall, exec: opCallVn},
	{name: "call_vn2", count: opV, num: 26, minV: 5, maxV: 8, minOps: 1, exec: opCallVn},
	{name: "tokenise", count: opV, num: 27, minV: 5, maxV: 8, minOps: 2, exec: opTokenise},
	{name: "encode_text", count: opV, num: 28, minV: 5, maxV: 8, minOps: 4, exec: opEncodeText},
	{name: "copy_table", count: opV, num: 29, minV: 5, maxV: 8, minOps: 3, exec: opCopyTable},
	{name: "print_table", count: opV, num: 30, minV: 5, maxV: 8, minOps: 2, exec: opPrintTable},
	{name: "check_arg_count", count: opV, num: 31, flags: fBranch, minV: 5, maxV: 8, minOps: 1, fast: kCheckArgCount, exec: opCheckArgCount},

	// EXT (§14.5, extended form, version 5 and later)
	{name: "save", count: opE, num: 0, flags: fStore, minV: 5, maxV: 8, exec: opSave},
	{name: "restore", count: opE, num: 1, flags: fStore, minV: 5, maxV: 8, exec: opRestore},
	{name: "log_shift", count: opE, num: 2, flags: fStore, minV: 5, maxV: 8, minOps: 2, exec: opLogShift},
	{name: "art_shift", count: opE, num: 3, flags: fStore, minV: 5, maxV: 8, minOps: 2, exec: opArtShift},
	{name: "set_font", count: opE, num: 4, flags: fStore, minV: 5, maxV: 8, minOps: 1, exec: opSetFont},
	{name: "save_undo", count: opE, num: 9, flags: fStore, minV: 5, maxV: 8, exec: opSaveUndo},
	{name: "restore_undo", count: opE, num: 10, flags: fStore, minV: 5, maxV: 8, exec: opRestoreUndo},
	{name: "print_unicode", count: opE, num: 11, minV: 5, maxV: 8, minOps: 1, exec: opPrintUnicode},
	{name: "check_unicode", count: opE, num: 12, flags: fStore, minV: 5, maxV: 8, minOps: 1, exec: opCheckUnicode},
	{name: "set_true_colour", count: opE, num: 13, minV: 5, maxV: 8, exec: opIgnore},
}

// maxOpNum bounds opcode numbers: 0OP and 1OP use 0-15, 2OP and VAR 0-31;
// the EXT numbers zvm executes are below 32 too (a larger one is illegal).
const maxOpNum = 32

// opTable[v][c][num] is the opcode that version v executes for count c and
// number num, or nil (illegal in that version).
// (Built in init: the handlers reach lookupOp through fault, so an
// initialising expression would be a cycle.)
var opTable *[9][numCounts][maxOpNum]*opcode

func init() {
	for i := range opcodes {
		opcodes[i].row = int16(i)
	}
	opTable = buildOpTable(opcodes)
}

// buildOpTable indexes the rows by version; it panics on two rows for one
// opcode in one version, or a row the index cannot hold (a table error,
// caught by any test).
func buildOpTable(rows []opcode) *[9][numCounts][maxOpNum]*opcode {
	var t [9][numCounts][maxOpNum]*opcode
	for i := range rows {
		d := &rows[i]
		if d.num >= maxOpNum || d.minV < 1 || d.maxV > 8 || d.minV > d.maxV || d.exec == nil {
			panic(fmt.Sprintf("zvm: bad opcode table row %v", d))
		}
		for v := d.minV; v <= d.maxV; v++ {
			if t[v][d.count][d.num] != nil {
				panic(fmt.Sprintf("zvm: opcode table: %v and %v both in version %d", t[v][d.count][d.num], d, v))
			}
			t[v][d.count][d.num] = d
		}
	}
	return &t
}

// lookupOp is the opcode for count c and number num in the machine's
// version, or nil.
func (m *Machine) lookupOp(c opCount, num int) *opcode {
	if uint(num) >= maxOpNum {
		return nil
	}
	return opTable[m.version][c][num]
}

// exec runs opcode (c, num) with n operands in m.ops and m.pc at its store
// byte, branch data or string (or the next instruction): the generic path.
func (m *Machine) exec(c opCount, num, n int) {
	d := m.lookupOp(c, num)
	if d == nil {
		m.illegal(c, num)
		return
	}
	if n < int(d.minOps) {
		m.fault("%v needs %d operands, got %d", d, d.minOps, n)
		return
	}
	d.exec(m, n)
}

// illegal faults on an opcode the version does not have, naming it if
// another version does.
func (m *Machine) illegal(c opCount, num int) {
	name := ""
	if uint(num) < maxOpNum {
		for v := 1; v <= 8; v++ {
			if d := opTable[v][c][num]; d != nil {
				name = fmt.Sprintf(" (%s, versions %d-%d)", d.name, d.minV, d.maxV)
				break
			}
		}
	}
	m.fault("illegal opcode %s:%d%s in version %d", c, num, name, m.version)
}

// opAt names the opcode of the instruction at pc ("2OP:4 (dec_chk)"), or
// returns "" if pc is outside memory or the opcode is illegal in the
// version; it reads the opcode bytes only, so faults can afford it.
func (m *Machine) opAt(pc int) string {
	if pc < 0 || pc >= len(m.mem) {
		return ""
	}
	c, num, ok := m.opcodeAt(pc)
	if !ok {
		return ""
	}
	if d := m.lookupOp(c, num); d != nil {
		return d.String()
	}
	return "" // illegal: the fault names it
}

// opcodeAt decodes the count and number of the instruction at pc (§4.3).
func (m *Machine) opcodeAt(pc int) (opCount, int, bool) {
	op := m.mem[pc]
	switch {
	case op < 0x80:
		return op2, int(op & 0x1f), true
	case op < 0xb0:
		return op1, int(op & 0x0f), true
	case op < 0xc0:
		if op == 0xbe && m.version >= 5 {
			if pc+1 >= len(m.mem) {
				return opE, 0, false
			}
			return opE, int(m.mem[pc+1]), true
		}
		return op0, int(op & 0x0f), true
	case op < 0xe0:
		return op2, int(op & 0x1f), true
	default:
		return opV, int(op & 0x1f), true
	}
}

package zvm

// The pre-decoded instruction cache. Instructions in static and high
// memory (at or above the static memory base, header word 0x0e) are
// decoded once (§4: form, operand types and values, store variable,
// branch) and then executed from the decoded form. This is safe without
// any invalidation: the game can write dynamic memory only (§1.1.1: static
// memory "cannot be altered by the game"; wb, ww, setObjRel and the globals
// all stop at the static base, and Restore, restart and RestoreQuetzal
// rewrite dynamic memory only), so bytes at or above the base never change
// while the Machine lives. Code in dynamic memory, which a game could
// rewrite, is never cached: step decodes it afresh every time.
//
// The hottest opcodes (branches, arithmetic, loads and stores, calls and
// returns: about 95% of the instructions of a cook.z8 turn) run
// inline in loop; every other opcode is handed to the generic path (exec,
// through the opcode table of opcodes.go) exactly as step would hand it
// (operands in m.ops, m.pc at the store or branch byte), so there is one
// implementation of each opcode's meaning besides the fast forms.
// TestCacheMatchesStep compares the two paths on every walkthrough, and
// FuzzOpcodePaths opcode by opcode on random state.
//
// Each decoded instruction links to the decoded instructions run after it
// (nextK, brK): the next one, the branch's, jump's or call's target, or
// the first other successor seen; a return follows the link of the call
// that made its frame (retK). The index over static memory (four bytes a
// byte, megabytes for a large game) is read only for a successor not seen
// before. A link is taken only when the PC equals its address, so a stale
// or wrong hint costs a lookup, never a wrong instruction.

// inst is one decoded instruction, in 32 bytes (two to a cache line).
type inst struct {
	kind    uint8     // a fast kind below, or kGeneric
	form    opCount   // the opcode count (2OP in long and variable form alike)
	opnum   uint8     // the opcode number within its form (EXT: the second byte)
	n       uint8     // operands
	varMask uint8     // bit i: operand i is a variable number (read when executed)
	br      uint8     // branch: brOn bit, and brJump, brFalse or brTrue; kCall with a constant routine: its accel code (accel.go)
	store   int16     // fast kinds: the variable that receives the result; kGeneric: the opcode's row, or -1 for exec to report
	ops     [4]uint16 // operand values or variable numbers (at most 4: call_vs2 and call_vn2 are left to step)
	next    int32     // fast kinds: the address after the instruction; generic: after the operands (store and branch bytes follow)
	brTo    int32     // the branch target when br&3 is brJump; a jump's or call's target (linkTarget); else the first successor after a return or a generic opcode other than next, learnt by loop (0 until then)
	// nextK and brK link to the decoded instructions at next and brTo
	// (0 until first seen), which saves looking them up in the index.
	nextK, brK int32
}

// br field: the branch is taken when its condition is (br&brOn != 0); it
// jumps to brTo, or returns false or true.
const (
	brJump  = 0
	brFalse = 1
	brTrue  = 2
	brOn    = 0x80
)

// fast kinds
const (
	kGeneric = iota
	kJe
	kJl
	kJg
	kDecChk
	kIncChk
	kJin
	kTest
	kOr
	kAnd
	kTestAttr
	kStore
	kLoadw
	kLoadb
	kGetProp
	kGetPropAddr
	kAdd
	kSub
	kMul
	kCall // call_vs, call_2s, call_1s, call_vs2 (store) and the _n forms (store -1)
	kJz
	kGetSibling // get_sibling, get_child (store and branch)
	kGetParent
	kGetPropLen
	kInc
	kDec
	kRet
	kJump
	kLoad
	kNot
	kRtrue
	kRfalse
	kRetPopped
	kStorew
	kStoreb
	kPush
	kCheckArgCount
)

// maxInstLen bounds an instruction's length (call_vs2: opcode, two types
// bytes, eight two-byte operands and a store byte, 20 bytes; EXT with a
// branch: 14). Instructions closer than this to the end of memory are
// not cached (step checks them byte by byte).
const maxInstLen = 24

// cacheIndex marks: an instruction not decoded yet, or one step decodes
// every time.
const (
	notDecoded = 0
	uncached   = -1
)

// initCache allocates the index over static and high memory.
func (m *Machine) initCache() {
	m.icache = make([]int32, len(m.mem)-m.dyn)
	m.insts = append(m.insts[:0], inst{}) // entry 0 stands for notDecoded
}

// decodeInst decodes the instruction at pc (pc >= m.dyn) into the cache
// and returns its index, or uncached (near the end of memory, and
// call_vs2 and call_vn2, whose eight operands inst has no room for: 32
// bytes keep two instructions to a cache line).
func (m *Machine) decodeInst(pc int) int32 {
	j := pc - m.dyn
	if pc+maxInstLen > len(m.mem) || len(m.insts) >= 1<<31-1 || m.mem[pc] == 0xec || m.mem[pc] == 0xfa {
		m.icache[j] = uncached
		return uncached
	}
	mem := m.mem
	var in inst
	op := mem[pc]
	p := pc + 1
	var types [4]byte
	nt := 0
	switch {
	case op < 0x80:
		in.form, in.opnum = op2, op&0x1f
		types[0], types[1] = opSmall, opSmall
		if op&0x40 != 0 {
			types[0] = opVar
		}
		if op&0x20 != 0 {
			types[1] = opVar
		}
		nt = 2
	case op < 0xb0:
		in.form, in.opnum = op1, op&0x0f
		types[0] = (op >> 4) & 3
		nt = 1
	case op < 0xc0:
		if op == 0xbe && m.version >= 5 {
			in.form, in.opnum = opE, mem[p]
			tb := mem[p+1]
			p += 2
			for i := 0; i < 4; i++ {
				types[i] = (tb >> (6 - 2*i)) & 3
			}
			nt = 4
		} else {
			in.form, in.opnum = op0, op&0x0f
		}
	default:
		in.form, in.opnum = opV, op&0x1f
		if op < 0xe0 {
			in.form = op2
		}
		tb := mem[p]
		p++
		for i := 0; i < 4; i++ {
			types[i] = (tb >> (6 - 2*i)) & 3
		}
		nt = 4
	}
	for _, t := range types[:nt] {
		switch t {
		case opLarge:
			in.ops[in.n] = uint16(mem[p])<<8 | uint16(mem[p+1])
			p += 2
		case opSmall:
			in.ops[in.n] = uint16(mem[p])
			p++
		case opVar:
			in.ops[in.n] = uint16(mem[p])
			in.varMask |= 1 << in.n
			p++
		}
		if t == opOmitted {
			break
		}
		in.n++
	}
	in.kind, p = m.fastKind(&in, p)
	in.next = int32(p)
	m.linkTarget(&in)
	k := int32(len(m.insts))
	m.insts = append(m.insts, in)
	m.icache[j] = k
	return k
}

// fastKind classifies a decoded instruction by the opcode table and, for
// a fast kind, decodes its store byte and branch (§4.6, §4.7) starting at
// p; it returns the kind and the address after the instruction. Opcodes
// the version lacks, and forms with fewer operands than the opcode needs,
// stay generic (the generic path reports them).
func (m *Machine) fastKind(in *inst, p int) (uint8, int) {
	d := m.lookupOp(in.form, int(in.opnum))
	if d == nil || in.n < d.minOps {
		in.store = -1 // exec reports it
		return kGeneric, p
	}
	if d.fast == kGeneric {
		in.store = d.row // loop calls the handler directly
		return kGeneric, p
	}
	kind := d.fast
	stores, branches := d.flags&fStore != 0, d.flags&fBranch != 0
	in.store = -1
	if stores {
		in.store = int16(m.mem[p])
		p++
	}
	if branches {
		b := m.mem[p]
		p++
		off := int(b & 0x3f)
		if b&0x40 == 0 {
			off = off<<8 | int(m.mem[p])
			p++
			if off&0x2000 != 0 {
				off -= 0x4000
			}
		}
		if b&0x80 != 0 {
			in.br = brOn
		}
		switch off {
		case 0:
			in.br |= brFalse
		case 1:
			in.br |= brTrue
		default:
			in.br |= brJump
			in.brTo = int32(p + off - 2)
		}
	}
	return kind, p
}

// linkTarget gives a jump and a call of a constant routine their target
// in brTo, where loop's links find it: a jump's address after the offset
// (§15 jump), a call's first instruction after the routine's header
// (§5.2) as loop's inline call computes it. Any other call leaves brTo 0.
// A link is followed only when the PC equals its address, so a target
// the run does not reach (a call taken by the generic path or accelerated)
// costs nothing but the lookup it would have cost anyway.
func (m *Machine) linkTarget(in *inst) {
	if in.varMask&1 != 0 || in.n == 0 {
		return
	}
	switch in.kind {
	case kJump:
		in.brTo = in.next + int32(int16(in.ops[0])) - 2
	case kCall:
		ra := int(in.ops[0]) << m.packShift
		if in.ops[0] == 0 || m.version == 7 || ra >= len(m.mem) {
			return
		}
		start := ra + 1
		if m.version <= 4 {
			start += 2 * int(m.mem[ra])
		}
		in.brTo = int32(start)
	}
}

// loop executes at most budget instructions, from the cache where it can,
// and returns how many it executed; it stops early when m.stop is set
// (input wanted, halt, error). Variables are read and written inline for
// globals and locals (the stack and errors go through readVar/writeVar);
// the result of a storing kind and the branch of a branching kind are
// handled once, after the switch.
func (m *Machine) loop(budget int) int {
	if m.icache == nil {
		m.initCache()
	}
	if m.retK == nil {
		m.retK = make([]int32, maxFrames)
	}
	// The program counter lives in a local; m.pc is written before any
	// method that reads it (step, the exec functions, call, ret) and read
	// back after any that moves it. Few other locals live across the
	// iterations: Go's calling convention keeps no register across a call,
	// so every live local is reloaded after each call an instruction makes;
	// memory, the globals and the index are read from m where needed.
	pc := m.pc
	prev := int32(0) // the instruction executed last, from the cache (0: none)
	// pin is &m.insts[prev], read only: decodeInst may move m.insts, but
	// only after pin is read in an iteration, and pin is taken afresh at
	// its end (the links are written through m.insts).
	var pin *inst
	for i := 0; i < budget; i++ {
		var k int32
		if prev != 0 {
			if pc == int(pin.next) {
				k = pin.nextK
			} else if pc == int(pin.brTo) {
				k = pin.brK
			}
		}
		if k == 0 {
			j := pc - m.dyn
			if m.noCache || uint(j) >= uint(len(m.icache)) {
				prev = 0
				m.pc = pc
				m.step()
				pc = m.pc
				if m.stop {
					return i + 1
				}
				continue
			}
			k = m.icache[j]
			if k <= notDecoded {
				if k == notDecoded {
					k = m.decodeInst(pc)
				}
				if k == uncached {
					prev = 0
					m.pc = pc
					m.step()
					pc = m.pc
					if m.stop {
						return i + 1
					}
					continue
				}
			}
			if prev != 0 {
				if p := &m.insts[prev]; pc == int(p.next) {
					p.nextK = k
				} else if pc == int(p.brTo) {
					p.brK = k
				} else if p.brTo == 0 {
					// the first other successor seen (a generic
					// opcode's store, branch or string bytes end
					// after next; a call of a routine in a variable)
					p.brTo, p.brK = int32(pc), k
				}
			}
		}
		prev = k
		in := &m.insts[k]
		pin = in
		m.opPC = pc
		var a, b uint16
		if n := in.n; n > 0 {
			a = in.ops[0]
			if in.varMask&1 != 0 {
				if v := int(a); v >= 16 {
					a = m.global(v)
				} else if v > 0 && v <= len(m.locals) {
					a = m.locals[v-1]
				} else if sp := len(m.stack) - 1; v == 0 && sp >= m.evalBase {
					a = m.stack[sp] // pop
					m.stack = m.stack[:sp]
				} else {
					a = m.readVar(v)
				}
			}
			if n > 1 {
				b = in.ops[1]
				if in.varMask&2 != 0 {
					if v := int(b); v >= 16 {
						b = m.global(v)
					} else if v > 0 && v <= len(m.locals) {
						b = m.locals[v-1]
					} else if sp := len(m.stack) - 1; v == 0 && sp >= m.evalBase {
						b = m.stack[sp] // pop
						m.stack = m.stack[:sp]
					} else {
						b = m.readVar(v)
					}
				}
				for x := uint8(2); x < n; x++ {
					o := in.ops[x]
					if in.varMask&(1<<x) != 0 {
						o = m.readVar(int(o))
					}
					m.ops[x] = o
				}
			}
		}
		const (
			none = iota
			store
			branch
			retv // return x from the current routine
		)
		post := none
		var x uint16  // the result of a storing kind
		var cond bool // the condition of a branching kind
		switch in.kind {
		case kGeneric:
			m.ops[0], m.ops[1] = a, b
			m.pc = int(in.next)
			if r := in.store; r >= 0 {
				opcodes[r].exec(m, int(in.n))
			} else {
				m.exec(in.form, int(in.opnum), int(in.n))
			}
			pc = m.pc
		case kJe:
			cond = a == b
			for x := uint8(2); x < in.n && !cond; x++ {
				cond = a == m.ops[x]
			}
			post = branch
		case kJl:
			cond, post = int16(a) < int16(b), branch
		case kJg:
			cond, post = int16(a) > int16(b), branch
		case kJz:
			cond, post = a == 0, branch
		case kDecChk:
			var x uint16
			if v := int(a); v > 0 && v <= len(m.locals) {
				m.locals[v-1]--
				x = m.locals[v-1]
			} else {
				x = m.addVarInd(v, 0xffff)
			}
			cond, post = int16(x) < int16(b), branch
		case kIncChk:
			var x uint16
			if v := int(a); v > 0 && v <= len(m.locals) {
				m.locals[v-1]++
				x = m.locals[v-1]
			} else {
				x = m.addVarInd(v, 1)
			}
			cond, post = int16(x) > int16(b), branch
		case kJin:
			if a == 0 {
				cond = b == 0
			} else {
				cond = m.objRel(int(a), 0) == int(b)
			}
			post = branch
		case kTest:
			cond, post = a&b == b, branch
		case kTestAttr:
			cond, post = a != 0 && m.attr(int(a), int(b)), branch
		case kCheckArgCount:
			cond, post = int(a) <= m.top().nArgs, branch
		case kOr:
			x, post = a|b, store
		case kAnd:
			x, post = a&b, store
		case kAdd:
			x, post = a+b, store
		case kSub:
			x, post = a-b, store
		case kMul:
			x, post = a*b, store
		case kNot:
			x, post = ^a, store
		case kLoadw:
			if ad, mem := int(uint16(a+2*b)), m.mem; ad+1 < len(mem) {
				x = uint16(mem[ad])<<8 | uint16(mem[ad+1])
			} else {
				x = m.rw(ad)
			}
			post = store
		case kLoadb:
			x, post = uint16(m.rb(int(uint16(a+b)))), store
		case kGetProp:
			if a != 0 {
				x = m.getProp(int(a), int(b))
			}
			post = store
		case kGetPropAddr:
			if a != 0 {
				d, _ := m.findProp(int(a), int(b))
				x = uint16(d)
			}
			post = store
		case kGetParent:
			if a != 0 {
				x = uint16(m.objRel(int(a), 0))
			}
			post = store
		case kGetPropLen:
			x, post = uint16(m.propLen(int(a))), store
		case kLoad:
			if v := int(a); v >= 16 && v <= 0xff {
				x = m.global(v)
			} else if v > 0 && v <= len(m.locals) {
				x = m.locals[v-1]
			} else {
				x = m.readVarInd(v)
			}
			post = store
		case kStore:
			pc = int(in.next)
			if v := int(a); v >= 16 && v <= 0xff {
				m.setGlobal(v, b)
			} else if v > 0 && v <= len(m.locals) {
				m.locals[v-1] = b
			} else {
				m.writeVarInd(v, b)
			}
		case kCall:
			if in.varMask&1 == 0 && a != 0 {
				if in.br == accelUnknown {
					in.br = m.accelOf(a)
				}
				if in.br != accelNone {
					if r, cnt, ok := m.accel(in.br, a, in.n, b, m.ops[2]); ok {
						i += cnt // the routine's instructions, as if run
						pc = int(in.next)
						if in.store >= 0 {
							m.writeVar(int(in.store), r)
						}
						break
					}
				}
			}
			// The common call inline (call's checks, none failing: a
			// routine inside memory with at most 15 locals, room on both
			// stacks); anything else goes through call.
			if ra := int(a) << m.packShift; a != 0 && m.version != 7 && ra < len(m.mem) {
				nl := int(m.mem[ra])
				start := ra + 1
				if m.version <= 4 {
					start += 2 * nl
				}
				if base := len(m.stack); nl <= 15 && len(m.frames) < maxFrames && base+nl < maxStack && start <= len(m.mem) {
					end := base + nl
					m.stack = m.stack[:end]
					locals := m.stack[base:end:end]
					if m.version <= 4 {
						for j := range locals {
							locals[j] = uint16(m.mem[ra+1+2*j])<<8 | uint16(m.mem[ra+2+2*j])
						}
					} else {
						clear(locals)
					}
					nArgs := int(in.n) - 1
					if nArgs > 0 && nl > 0 {
						locals[0] = b
						copy(locals[1:], m.ops[2:in.n])
					}
					m.retK[len(m.frames)] = k
					m.frames = append(m.frames, frame{retPC: int(in.next), store: int(in.store), base: base, nLocals: nl, nArgs: nArgs})
					m.locals = locals
					m.evalBase = end
					pc = start
					break
				}
			}
			m.pc = int(in.next)
			n := int(in.n)
			if n > 1 {
				m.callArgs[0] = b
				copy(m.callArgs[1:], m.ops[2:n])
			}
			m.call(a, m.callArgs[:n-1], int(in.store))
			pc = m.pc
		case kGetSibling:
			if a != 0 {
				x = uint16(m.objRel(int(a), int(in.opnum)))
			}
			m.writeVar(int(in.store), x)
			cond, post = x != 0, branch
		case kInc:
			pc = int(in.next)
			if v := int(a); v > 0 && v <= len(m.locals) {
				m.locals[v-1]++
			} else {
				m.addVarInd(v, 1)
			}
		case kDec:
			pc = int(in.next)
			if v := int(a); v > 0 && v <= len(m.locals) {
				m.locals[v-1]--
			} else {
				m.addVarInd(v, 0xffff)
			}
		case kRet:
			x, post = a, retv
		case kJump:
			pc = int(in.next) + int(int16(a)) - 2
		case kRtrue:
			x, post = 1, retv
		case kRfalse:
			x, post = 0, retv
		case kRetPopped:
			m.pc = pc
			x, post = m.pop(), retv
		case kStorew:
			pc = int(in.next)
			m.ww(int(a+2*b), m.ops[2])
		case kStoreb:
			pc = int(in.next)
			m.wb(int(a+b), byte(m.ops[2]))
		case kPush:
			pc = int(in.next)
			m.push(a)
		}
		switch post {
		case store:
			pc = int(in.next)
			if v := int(in.store); v >= 16 {
				m.setGlobal(v, x)
			} else if v > 0 && v <= len(m.locals) {
				m.locals[v-1] = x
			} else if v == 0 && len(m.stack) < maxStack {
				m.stack = append(m.stack, x) // push (within the capacity)
			} else {
				m.writeVar(v, x)
			}
		case branch:
			switch {
			case cond != (in.br&brOn != 0):
				pc = int(in.next)
			case in.br&3 == brJump:
				pc = int(in.brTo)
			default:
				x, post = uint16(in.br&3)-1, retv
			}
		}
		if post == retv {
			// ret inline, for any frame but the main routine's.
			if nf := len(m.frames); nf > 1 && m.err == nil {
				f := m.frames[nf-1]
				m.frames = m.frames[:nf-1]
				m.stack = m.stack[:f.base]
				g := &m.frames[nf-2]
				end := g.base + g.nLocals
				m.locals = m.stack[g.base:end:end]
				m.evalBase = end
				pc = f.retPC
				// the call's instruction links to the one after it
				if j := nf - 1; j < len(m.retK) {
					if ck := m.retK[j]; ck > 0 && int(ck) < len(m.insts) {
						prev, pin = ck, &m.insts[ck]
					}
				}
				if v := f.store; v >= 16 {
					m.setGlobal(v, x)
				} else if v > 0 && v <= len(m.locals) {
					m.locals[v-1] = x
				} else if v == 0 && len(m.stack) < maxStack {
					m.stack = append(m.stack, x) // push (within the capacity)
				} else if v >= 0 {
					m.pc = pc
					m.writeVar(v, x)
					pc = m.pc
				}
			} else {
				m.pc = pc
				m.ret(x)
				pc = m.pc
			}
		}
		if m.stop {
			m.pc = pc
			return i + 1
		}
	}
	m.pc = pc
	return budget
}

// addVarInd adds d to the variable numbered v (§6.3.4: the stack's top
// in place) and returns the new value: a global or a local directly, any
// other number through readVarInd and writeVarInd.
func (m *Machine) addVarInd(v int, d uint16) uint16 {
	if v >= 16 && v <= 0xff {
		x := m.global(v) + d
		m.setGlobal(v, x)
		return x
	}
	if v > 0 && v <= len(m.locals) {
		m.locals[v-1] += d
		return m.locals[v-1]
	}
	x := m.readVarInd(v) + d
	m.writeVarInd(v, x)
	return x
}

// global reads variable v (16-255), a global: within dynamic memory (Load
// checks that the table fits).
func (m *Machine) global(v int) uint16 {
	g := m.hdr.Globals + 2*(v-16)
	return uint16(m.mem[g])<<8 | uint16(m.mem[g+1])
}

// setGlobal writes variable v (16-255), a global.
func (m *Machine) setGlobal(v int, x uint16) {
	g := m.hdr.Globals + 2*(v-16)
	m.mem[g], m.mem[g+1] = byte(x>>8), byte(x)
}

package zvm

import "errors"

// Options configure a Machine.
type Options struct {
	Seed   int64 // seed of the random generator; every value, 0 included, is a valid seed
	Budget int   // instructions one Run may execute before it returns ErrBudget (0: 10,000,000)
	Width  int   // screen width in characters reported to the game (0: 80); height 255 (no [MORE])
}

// DefaultBudget is the instruction budget of one Run when Options.Budget is 0.
const DefaultBudget = 10_000_000

// Wait says why Run returned.
type Wait int

const (
	WaitLine Wait = iota // the game waits for a line (sread/aread); answer with Input
	WaitKey              // the game waits for one key (read_char); answer with Key
	Halted               // quit executed or the game returned from main; the machine is done
)

func (w Wait) String() string {
	switch w {
	case WaitLine:
		return "WaitLine"
	case WaitKey:
		return "WaitKey"
	case Halted:
		return "Halted"
	}
	return "Wait(?)"
}

// ErrBudget is returned by Run when it executed Budget instructions without
// waiting for input; the machine is unusable until Restore.
var ErrBudget = errors.New("zvm: instruction budget exhausted (runaway game?)")

// Output is the text printed since the last call of Machine.Output.
type Output struct {
	Main   string   // everything printed to the lower window, whatever its style (bold, italic, fixed)
	Status []string // the upper window's current lines (v4+), or v3's status line rendered; nil if none
}

// Header is the story file's header: version, release, serial, checksum and
// the byte addresses of its tables.
type Header struct {
	Version          int
	Release          int
	Serial           string
	Checksum         uint16
	FileLength       int // bytes, from the header (0 in some old files: then the file's length)
	HighMem          int
	InitialPC        int // v1-5, 7, 8: the first instruction's address; v6: the main routine's packed address
	Dictionary       int
	ObjectTable      int
	Globals          int
	StaticMem        int // the first byte of static memory: dynamic memory is [0, StaticMem)
	Abbreviations    int
	TerminatingChars int // v5+: 0 if none
	AlphabetTable    int // v5+: 0 for the default alphabets
	ExtensionTable   int // v5+: 0 if none
	RoutineOffset    int // v6/v7 only
	StringOffset     int // v6/v7 only
}

// Object is one object of the object table, as the machine holds it now.
type Object struct {
	ID, Parent, Sibling, Child int
	Name                       string
	Attr                       []bool // 32 attributes in v3, 48 in v4+
}

// DictWord is one entry of the game's dictionary.
type DictWord struct {
	Addr int    // byte address of the entry
	Word string // the decoded text (at most 6 letters in v3, 9 in v4+)
	Data []byte // the entry's bytes after the encoded text (word types, verb numbers)
}

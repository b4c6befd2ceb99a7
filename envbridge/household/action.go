package household

import "strings"

// Verb is the kind of an action.
type Verb uint8

// Verbs of the household grammar (ALFWorld 0.3, with 0.4's "move").
const (
	VerbNone      Verb = iota
	VerbGoTo           // go to {recep}
	VerbOpen           // open {recep}
	VerbClose          // close {recep}
	VerbTake           // take {obj} from {recep}
	VerbPut            // put {obj} in/on {recep} (0.3) | move {obj} to {recep} (0.4)
	VerbClean          // clean {obj} with {recep}
	VerbHeat           // heat {obj} with {recep}
	VerbCool           // cool {obj} with {recep}
	VerbUse            // use {lamp}
	VerbExamine        // examine {recep or obj}
	VerbInventory      // inventory
	VerbLook           // look
)

// Action is a parsed command. Object and Target are names as written
// ("apple 1", "countertop 2"); which one a verb fills follows its grammar:
// Target for go to / open / close / use / examine, both for take / put /
// clean / heat / cool.
type Action struct {
	Verb   Verb
	Object string
	Target string
}

// ParseAction reads a command in either grammar: case and extra white space
// are ignored; "put X in Y", "put X on Y", "put X in/on Y" and "move X to Y"
// are all the place action. ok is false for anything else. It never panics
// (FuzzParseAction).
func ParseAction(s string) (a Action, ok bool) {
	s = canonicalSpace(s)
	two := func(v Verb, rest, sep string) (Action, bool) {
		o, t, found := strings.Cut(rest, sep)
		if !found || o == "" || t == "" {
			return Action{}, false
		}
		return Action{Verb: v, Object: o, Target: t}, true
	}
	one := func(v Verb, rest string) (Action, bool) {
		if rest == "" {
			return Action{}, false
		}
		return Action{Verb: v, Target: rest}, true
	}
	switch {
	case s == "inventory":
		return Action{Verb: VerbInventory}, true
	case s == "look":
		return Action{Verb: VerbLook}, true
	case strings.HasPrefix(s, "go to "):
		return one(VerbGoTo, s[len("go to "):])
	case strings.HasPrefix(s, "open "):
		return one(VerbOpen, s[len("open "):])
	case strings.HasPrefix(s, "close "):
		return one(VerbClose, s[len("close "):])
	case strings.HasPrefix(s, "use "):
		return one(VerbUse, s[len("use "):])
	case strings.HasPrefix(s, "examine "):
		return one(VerbExamine, s[len("examine "):])
	case strings.HasPrefix(s, "take "):
		return two(VerbTake, s[len("take "):], " from ")
	case strings.HasPrefix(s, "move "):
		return two(VerbPut, s[len("move "):], " to ")
	case strings.HasPrefix(s, "clean "):
		return two(VerbClean, s[len("clean "):], " with ")
	case strings.HasPrefix(s, "heat "):
		return two(VerbHeat, s[len("heat "):], " with ")
	case strings.HasPrefix(s, "cool "):
		return two(VerbCool, s[len("cool "):], " with ")
	case strings.HasPrefix(s, "put "):
		rest := s[len("put "):]
		for _, sep := range []string{" in/on ", " in ", " on "} {
			if a, ok := two(VerbPut, rest, sep); ok {
				return a, true
			}
		}
	}
	return Action{}, false
}

// String writes the action in the given grammar's canonical form, the form
// the admissible list uses.
func (a Action) String(g Grammar) string {
	switch a.Verb {
	case VerbGoTo:
		return "go to " + a.Target
	case VerbOpen:
		return "open " + a.Target
	case VerbClose:
		return "close " + a.Target
	case VerbUse:
		return "use " + a.Target
	case VerbExamine:
		return "examine " + a.Target
	case VerbTake:
		return "take " + a.Object + " from " + a.Target
	case VerbPut:
		if g == Grammar04 {
			return "move " + a.Object + " to " + a.Target
		}
		return "put " + a.Object + " in/on " + a.Target
	case VerbClean:
		return "clean " + a.Object + " with " + a.Target
	case VerbHeat:
		return "heat " + a.Object + " with " + a.Target
	case VerbCool:
		return "cool " + a.Object + " with " + a.Target
	case VerbInventory:
		return "inventory"
	case VerbLook:
		return "look"
	}
	return ""
}

// canonicalSpace lower-cases s, trims it and collapses runs of white space,
// without allocating when s is already in that form (the usual case: agents
// copy admissible actions).
func canonicalSpace(s string) string {
	clean := len(s) > 0 && s[0] != ' ' && s[len(s)-1] != ' ' && s[len(s)-1] != '.'
	for i := 0; clean && i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' || c == '\t' || c == '\n' || c == '\r' || c >= 0x80 || c == ' ' && i > 0 && s[i-1] == ' ' {
			clean = false
		}
	}
	if clean {
		return s
	}
	s = strings.TrimSuffix(strings.TrimSpace(s), ".")
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

package envbridge

import "strings"

// ActionTemplate is one form of action of an environment whose actions are
// templates over the objects in view rather than a list: Form with OBJ (and
// LOC) for the objects it takes, and what it does ("" where the form says it).
type ActionTemplate struct {
	Form    string
	Meaning string
}

// ScienceActions are ScienceWorld's action templates (Wang et al. 2022),
// the one list every prompt that shows them renders: SAMem's thinker
// (seed 002 Appendix D) and CLIN's controller (seed 004 Fig. 6) when the
// driver gives none of its own.
var ScienceActions = []ActionTemplate{
	{"open OBJ", "open a container"},
	{"close OBJ", "close a container"},
	{"activate OBJ", "activate a device"},
	{"deactivate OBJ", "deactivate a device"},
	{"connect OBJ to OBJ", "connect electrical components"},
	{"disconnect OBJ", "disconnect electrical components"},
	{"dunk OBJ in OBJ", ""},
	{"eat OBJ", ""},
	{"flush OBJ", ""},
	{"use OBJ on OBJ", ""},
	{"look around", "describe the current room"},
	{"look at OBJ", ""},
	{"read OBJ", "read a note or book"},
	{"move OBJ to OBJ", "move an object to a container"},
	{"pick up OBJ", "move an object to the inventory"},
	{"pour OBJ in OBJ", ""},
	{"put down OBJ", ""},
	{"mix OBJ", "chemically mix a container"},
	{"go LOC", "go to a room"},
	{"focus on OBJ", "signal intent on a task object"},
	{"wait", "do nothing for 10 steps"},
	{"wait1", "do nothing for one step"},
}

// Templates are the action templates of style's environments when its
// driver gives none: ScienceActions for StyleScience, nil for the others
// (whose drivers list actions or take free-form ones).
func Templates(style Style) []ActionTemplate {
	if style == StyleScience {
		return ScienceActions
	}
	return nil
}

// Forms are the templates' forms, in order.
func Forms(ts []ActionTemplate) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Form
	}
	return out
}

// Fill instantiates templates of at most one object with each of objects,
// in order (a template without an object as it is), skipping those whose
// form starts with one of skip, up to max actions (0: no bound). It is a
// world-neutral way to propose concrete actions where an environment gives
// templates and objects, not a list.
func Fill(templates, objects []string, skip []string, max int) []string {
	var out []string
	add := func(a string) bool {
		out = append(out, a)
		return max > 0 && len(out) >= max
	}
	for _, t := range templates {
		t = strings.TrimSpace(t)
		if t == "" || hasAnyPrefix(t, skip) {
			continue
		}
		switch n := strings.Count(t, "OBJ") + strings.Count(t, "LOC"); n {
		case 0:
			if add(t) {
				return out
			}
		case 1:
			for _, o := range objects {
				a := strings.Replace(strings.Replace(t, "OBJ", o, 1), "LOC", o, 1)
				if add(a) {
					return out
				}
			}
		}
	}
	return out
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

package clin

import (
	"fmt"
	"strings"
)

// Kind is the relation of a causal abstraction (seed 004 Sec. 3.4, Fig. 3).
type Kind string

const (
	// Necessary: "X is NECESSARY to Y", an action that enabled a desired change.
	Necessary Kind = "NECESSARY"
	// NotContribute: "X DOES NOT CONTRIBUTE to Y", a contrastive, unhelpful action.
	NotContribute Kind = "DOES NOT CONTRIBUTE"
	// Advice is a free-form hint, the memory of the ablation of seed 004
	// Sec. 5 question E (Fig. 13, Table 3): the generator was not asked for
	// causal abstractions. Its whole text is X; Y and the modifier are empty.
	Advice Kind = "ADVICE"
)

// Modifier is the uncertainty of an abstraction (seed 004 Sec. 3.4): "may" for
// moderate to high uncertainty, "should" for low, none for a plain statement.
type Modifier string

const (
	ModNone   Modifier = ""
	ModMay    Modifier = "may"
	ModShould Modifier = "should"
)

// Abstraction is one memory item: a causal abstraction in structured form,
// with the trial and final reward it was last drawn from.
type Abstraction struct {
	Kind     Kind
	Modifier Modifier
	X, Y     string
	// Trial is the trial (of its task) whose memory generation produced or
	// re-confirmed the item; -1 for meta-memory items (Eq. 3).
	Trial int
	// Reward is that trial's final reward, normalised to [0, 1].
	Reward float64
}

// Key identifies an abstraction regardless of modifier and provenance, for
// merging evidence across memories.
func (a Abstraction) Key() string {
	return string(a.Kind) + "|" + NormPhrase(a.X) + "|" + NormPhrase(a.Y)
}

// String renders the abstraction in the paper's template (Fig. 3, Fig. 7):
// "X SHOULD BE NECESSARY to Y.", "X MAY NOT CONTRIBUTE to Y.", ...
// ParseAbstraction reads it back.
func (a Abstraction) String() string {
	if a.Kind == Advice {
		return a.X
	}
	var rel string
	switch a.Kind {
	case NotContribute:
		switch a.Modifier {
		case ModMay:
			rel = "MAY NOT CONTRIBUTE"
		case ModShould:
			rel = "SHOULD NOT CONTRIBUTE"
		default:
			rel = "DOES NOT CONTRIBUTE"
		}
	default:
		switch a.Modifier {
		case ModMay:
			rel = "MAY BE NECESSARY"
		case ModShould:
			rel = "SHOULD BE NECESSARY"
		default:
			rel = "is NECESSARY"
		}
	}
	return fmt.Sprintf("%s %s to %s.", a.X, rel, a.Y)
}

// NormPhrase lower-cases, collapses white space and drops trailing
// punctuation, so that phrases from different generators compare equal.
func NormPhrase(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.TrimRight(s, ".;:,!")
	return strings.Join(strings.Fields(s), " ")
}

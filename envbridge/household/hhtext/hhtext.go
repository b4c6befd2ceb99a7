// Package hhtext parses the text of the household world (ALFWorld's text,
// which envbridge/household reproduces): goals and observations.
//
// It is a parser of game output, for the offline agent roles of every memory
// method. Those roles may read only what an agent sees (the observation text,
// the goal text and the admissible actions), never the environment's hidden
// state, so everything they know about the household comes through here. The
// parser is tolerant: text it does not recognise gives Kind Unknown (or
// ok == false), never a panic or an error.
//
// Names are kept as the text writes them: instances as "apple 1" or
// "countertop 2", types (in goals) as "apple". SplitName separates the two.
package hhtext

import (
	"strconv"
	"strings"
)

// The six ALFWorld task types (type names as ALFWorld spells them).
const (
	PickAndPlace = "pick_and_place_simple"
	LookInLight  = "look_at_obj_in_light"
	PickClean    = "pick_clean_then_place_in_recep"
	PickHeat     = "pick_heat_then_place_in_recep"
	PickCool     = "pick_cool_then_place_in_recep"
	PickTwo      = "pick_two_obj_and_place"
)

// TaskPrefix introduces the goal line of the first observation.
const TaskPrefix = "Your task is to: "

// Goal is what a goal sentence asks for. Object, Receptacle and Lamp are
// types ("apple", "countertop", "desklamp"), as goals name them.
type Goal struct {
	Type       string // one of the six task type constants
	Object     string // the object type to move or examine
	Receptacle string // the destination type; empty for LookInLight
	Lamp       string // the light source type; set only for LookInLight
	Count      int    // how many objects: 2 for PickTwo, else 1
}

// goalForm is one goal template: prefix, object, middle, place, suffix.
type goalForm struct {
	typ, prefix, middle string
	lamp                bool
}

// goalForms lists both templates of each task type (seed 002 Appendix B uses
// ALFWorld's; the issue quotes them). More specific prefixes come first so
// that "put a clean" is not read as "put a".
var goalForms = []goalForm{
	{PickClean, "put a clean ", " in ", false},
	{PickClean, "clean some ", " and put it in ", false},
	{PickHeat, "put a hot ", " in ", false},
	{PickHeat, "heat some ", " and put it in ", false},
	{PickCool, "put a cool ", " in ", false},
	{PickCool, "cool some ", " and put it in ", false},
	{PickTwo, "put two ", " in ", false},
	{PickTwo, "find two ", " and put them in ", false},
	{LookInLight, "look at ", " under the ", true},
	{LookInLight, "examine the ", " with the ", true},
	{PickAndPlace, "put a ", " in ", false},
	{PickAndPlace, "put some ", " on ", false},
}

// ParseGoal reads a goal sentence, with or without the "Your task is to: "
// prefix and the final period, in any letter case. A whole first observation
// is accepted too (the goal line is found in it). ok is false when no
// template matches.
func ParseGoal(text string) (g Goal, ok bool) {
	if i := strings.Index(text, TaskPrefix); i >= 0 {
		text = text[i+len(TaskPrefix):]
	} else if lower := strings.ToLower(text); len(lower) == len(text) {
		if i := strings.Index(lower, strings.ToLower(TaskPrefix)); i >= 0 {
			text = text[i+len(TaskPrefix):]
		}
	}
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		text = text[:i]
	}
	s := normalize(text)
	s = strings.TrimSuffix(s, ".")
	s = strings.TrimSpace(s)
	for _, f := range goalForms {
		rest, found := strings.CutPrefix(s, f.prefix)
		if !found {
			continue
		}
		obj, place, found := strings.Cut(rest, f.middle)
		if !found || obj == "" || place == "" || strings.Contains(place, " ") || strings.Contains(obj, " ") {
			continue
		}
		g = Goal{Type: f.typ, Object: obj, Count: 1}
		if f.lamp {
			g.Lamp = place
		} else {
			g.Receptacle = place
		}
		if f.typ == PickTwo {
			g.Count = 2
		}
		return g, true
	}
	return Goal{}, false
}

// normalize lower-cases s and collapses runs of white space into one space.
func normalize(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// Kind says what an observation reports.
type Kind int

// Kinds of observation. The example texts are the household world's.
const (
	Unknown   Kind = iota // anything not recognised
	Start                 // "You are in the middle of a room. Looking quickly around you, you see a cabinet 1, ..." (Items: receptacles)
	Arrive                // "You arrive at X. On the X, you see ..." / "The X is closed." / "The X is open. In it, you see ..."
	Open                  // "You open the X. The X is open. In it, you see ..."
	Close                 // "You close the X."
	Take                  // "You pick up the O from the X."
	Put                   // "You put the O in/on the X." (0.3) or "You move the O to the X." (0.4)
	Clean                 // "You clean the O using the X."
	Heat                  // "You heat the O using the X."
	Cool                  // "You cool the O using the X."
	TurnOn                // "You turn on the L."
	Inventory             // "You are carrying: a O." / "You are not carrying anything."
	Nothing               // "Nothing happens."
	Look                  // "You are facing the X. Next to it, you see nothing."
	Examine               // "On the X, you see ..." / "The X is closed." / "There's nothing special about O."
)

var kindNames = [...]string{"unknown", "start", "arrive", "open", "close", "take", "put", "clean", "heat", "cool", "turn_on", "inventory", "nothing", "look", "examine"}

// String names the kind in lower case ("arrive").
func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return "kind(" + strconv.Itoa(int(k)) + ")"
	}
	return kindNames[k]
}

// Event is what one observation says happened.
type Event struct {
	Kind Kind
	// Target is the receptacle arrived at, opened, closed, taken from, put in,
	// used as appliance, faced or examined; or the lamp turned on.
	Target string
	// Object is the object taken, put, cleaned, heated, cooled or examined.
	Object string
	// Items are the names listed: receptacles in the room (Start), contents
	// seen (Arrive, Open, Examine; empty for "nothing"), or what is carried
	// (Inventory; empty when nothing). Nil when nothing was listed (e.g. closed).
	Items []string
	// Closed: the Target is closed, so its contents are unknown.
	Closed bool
	// Opened: the Target is an open container ("... is open. In it, ...").
	Opened bool
	// Task is the goal sentence of a first observation (after "Your task is
	// to: "), else empty.
	Task string
}

// ParseObservation reads one observation of the household world. Text it
// does not recognise gives Kind Unknown.
func ParseObservation(text string) Event {
	text = strings.TrimSpace(text)
	var ev Event
	if i := strings.Index(text, TaskPrefix); i >= 0 {
		ev.Task = strings.TrimSpace(text[i+len(TaskPrefix):])
		if j := strings.IndexByte(ev.Task, '\n'); j >= 0 {
			ev.Task = strings.TrimSpace(ev.Task[:j])
		}
		text = strings.TrimSpace(text[:i])
	}
	// ALFWorld prints a banner before the first observation; skip it.
	if strings.HasPrefix(text, "-=") {
		if i := strings.Index(text, "=-"); i >= 0 {
			text = strings.TrimSpace(text[i+2:])
		}
	}
	switch {
	case text == "Nothing happens.":
		ev.Kind = Nothing
	case strings.HasPrefix(text, "You are in the middle of a room."):
		ev.Kind = Start
		if _, list, ok := strings.Cut(text, "you see "); ok {
			ev.Items = ParseList(list)
		}
	case strings.HasPrefix(text, "You arrive at "):
		rest := text[len("You arrive at "):]
		name, after, ok := strings.Cut(rest, ". ")
		if !ok {
			name = strings.TrimSuffix(rest, ".")
		}
		ev.Kind, ev.Target = Arrive, name
		parseContents(&ev, after)
	case strings.HasPrefix(text, "You open the "):
		rest := text[len("You open the "):]
		name, after, _ := strings.Cut(rest, ". ")
		ev.Kind, ev.Target = Open, strings.TrimSuffix(name, ".")
		parseContents(&ev, after)
	case strings.HasPrefix(text, "You close the "):
		ev.Kind, ev.Target = Close, trimEnd(text[len("You close the "):])
	case strings.HasPrefix(text, "You pick up the "):
		o, r, ok := strings.Cut(trimEnd(text[len("You pick up the "):]), " from the ")
		if ok {
			ev.Kind, ev.Object, ev.Target = Take, o, r
		}
	case strings.HasPrefix(text, "You put the "):
		rest := trimEnd(text[len("You put the "):])
		for _, sep := range []string{" in/on the ", " in the ", " on the "} {
			if o, r, ok := strings.Cut(rest, sep); ok {
				ev.Kind, ev.Object, ev.Target = Put, o, r
				break
			}
		}
	case strings.HasPrefix(text, "You move the "):
		if o, r, ok := strings.Cut(trimEnd(text[len("You move the "):]), " to the "); ok {
			ev.Kind, ev.Object, ev.Target = Put, o, r
		}
	case strings.HasPrefix(text, "You clean the "), strings.HasPrefix(text, "You heat the "), strings.HasPrefix(text, "You cool the "):
		verb, rest, _ := strings.Cut(text[len("You "):], " the ")
		if o, r, ok := strings.Cut(trimEnd(rest), " using the "); ok {
			ev.Object, ev.Target = o, r
			ev.Kind = map[string]Kind{"clean": Clean, "heat": Heat, "cool": Cool}[verb]
		}
	case strings.HasPrefix(text, "You turn on the "):
		ev.Kind, ev.Target = TurnOn, trimEnd(text[len("You turn on the "):])
	case text == "You are not carrying anything.":
		ev.Kind, ev.Items = Inventory, []string{}
	case strings.HasPrefix(text, "You are carrying: "):
		ev.Kind, ev.Items = Inventory, ParseList(text[len("You are carrying: "):])
	case strings.HasPrefix(text, "You are facing the "):
		name, _, _ := strings.Cut(text[len("You are facing the "):], ". ")
		ev.Kind, ev.Target = Look, trimEnd(name)
	case strings.HasPrefix(text, "There's nothing special about "):
		ev.Kind, ev.Object = Examine, trimEnd(text[len("There's nothing special about "):])
	case strings.HasPrefix(text, "On the "), strings.HasPrefix(text, "The "):
		ev.Kind = Examine
		parseContents(&ev, text)
	}
	return ev
}

// parseContents reads "On the X, you see ...", "The X is closed." or
// "The X is open. In it, you see ..." into ev (Target when ev has none).
func parseContents(ev *Event, s string) {
	s = strings.TrimSpace(s)
	switch {
	case strings.HasPrefix(s, "On the "):
		name, list, ok := strings.Cut(s[len("On the "):], ", you see ")
		if !ok {
			return
		}
		setTarget(ev, name)
		ev.Items = ParseList(list)
	case strings.HasPrefix(s, "The "):
		rest := s[len("The "):]
		if name, ok := strings.CutSuffix(trimEnd(rest), " is closed"); ok {
			setTarget(ev, name)
			ev.Closed = true
			return
		}
		name, after, ok := strings.Cut(rest, " is open.")
		if !ok {
			return
		}
		setTarget(ev, name)
		ev.Opened = true
		if _, list, ok := strings.Cut(after, "you see "); ok {
			ev.Items = ParseList(list)
		}
	}
}

func setTarget(ev *Event, name string) {
	if ev.Target == "" {
		ev.Target = name
	}
}

func trimEnd(s string) string {
	return strings.TrimSuffix(strings.TrimSpace(s), ".")
}

// ParseList reads an item list as the household world writes it:
// "a apple 1, a bread 1, and a tomato 2" (the article is always "a";
// "an" and "the" are accepted too). "nothing" gives an empty, non-nil list.
func ParseList(s string) []string {
	s = trimEnd(s)
	if s == "" || s == "nothing" {
		return []string{}
	}
	parts := strings.Split(s, ", ")
	out := make([]string, 0, len(parts))
	for _, p := range parts {
		p = strings.TrimSpace(p)
		p = strings.TrimPrefix(p, "and ")
		for _, art := range []string{"a ", "an ", "the "} {
			if q, ok := strings.CutPrefix(p, art); ok {
				p = q
				break
			}
		}
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// SplitName splits an instance name "apple 1" into its type "apple" and
// number 1. ok is false when the name does not end in " <positive number>".
func SplitName(name string) (kind string, n int, ok bool) {
	i := strings.LastIndexByte(name, ' ')
	if i <= 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(name[i+1:])
	if err != nil || n <= 0 || name[i+1] == '+' {
		return "", 0, false
	}
	return name[:i], n, true
}

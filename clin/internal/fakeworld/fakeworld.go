// Package fakeworld is a tiny household room for CLIN's tests: it speaks
// the household world's text (ALFWorld 0.3 grammar), so that the tests of
// clin and clin/offline do not depend on the full environment. Only the
// rules the offline roles rely on are modelled.
package fakeworld

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/samem/trainer/envbridge"
)

// World is the room, an envbridge.Env of the tasks of this package. The
// zero value is ready to use.
type World struct {
	recs     []string            // receptacles, in listing order
	contents map[string][]string // receptacle -> objects
	closed   map[string]bool
	at       string
	holding  string
	hot      map[string]bool
	cold     map[string]bool
	clean    map[string]bool
	lampOn   bool
	task     fakeTask
	steps    int
	done     bool
}

type fakeTask struct {
	envbridge.Task
	typ, obj, recep, lamp string
	count                 int
	layout                map[string][]string // receptacle -> objects at start
}

var fakeRecs = []string{"cabinet 1", "cabinet 2", "countertop 1", "countertop 2", "diningtable 1", "drawer 1", "fridge 1", "microwave 1", "shelf 1", "sidetable 1", "sinkbasin 1"}

// kindOf is an entity's kind: its name without the instance number.
func kindOf(name string) string {
	if i := strings.LastIndexByte(name, ' '); i > 0 {
		return name[:i]
	}
	return name
}

func isOpenable(r string) bool {
	k := kindOf(r)
	return k == "cabinet" || k == "drawer" || k == "fridge" || k == "microwave"
}

func (w *World) Reset(_ context.Context, t envbridge.Task) (envbridge.Observation, error) {
	ft, ok := fakeTasks[t.ID]
	if !ok {
		return envbridge.Observation{}, envbridge.ErrUnknownTask
	}
	*w = World{recs: fakeRecs, contents: map[string][]string{}, closed: map[string]bool{},
		hot: map[string]bool{}, cold: map[string]bool{}, clean: map[string]bool{}, task: ft}
	for _, r := range fakeRecs {
		w.closed[r] = isOpenable(r)
		w.contents[r] = append([]string(nil), ft.layout[r]...)
	}
	var list []string
	for _, r := range w.recs {
		list = append(list, "a "+r)
	}
	text := "You are in the middle of a room. Looking quickly around you, you see " +
		strings.Join(list[:len(list)-1], ", ") + ", and " + list[len(list)-1] + ".\n\nYour task is to: " + t.Goal + "."
	return envbridge.Observation{Text: text, Admissible: w.admissible()}, nil
}

func seeList(objs []string) string {
	if len(objs) == 0 {
		return "nothing"
	}
	var l []string
	for _, o := range objs {
		l = append(l, "a "+o)
	}
	if len(l) == 1 {
		return l[0]
	}
	return strings.Join(l[:len(l)-1], ", ") + ", and " + l[len(l)-1]
}

func (w *World) admissible() []string {
	var a []string
	for _, r := range w.recs {
		if r != w.at {
			a = append(a, "go to "+r)
		}
	}
	if w.at != "" {
		if isOpenable(w.at) {
			if w.closed[w.at] {
				a = append(a, "open "+w.at)
			} else {
				a = append(a, "close "+w.at)
			}
		}
		if !w.closed[w.at] {
			for _, o := range w.contents[w.at] {
				if w.holding == "" && kindOf(o) != "desklamp" {
					a = append(a, "take "+o+" from "+w.at)
				}
				if kindOf(o) == "desklamp" {
					a = append(a, "use "+o)
				}
			}
			if w.holding != "" {
				a = append(a, "put "+w.holding+" in/on "+w.at)
			}
		}
		if w.holding != "" {
			switch kindOf(w.at) {
			case "microwave":
				a = append(a, "heat "+w.holding+" with "+w.at)
			case "fridge":
				a = append(a, "cool "+w.holding+" with "+w.at)
			case "sinkbasin":
				a = append(a, "clean "+w.holding+" with "+w.at)
			}
		}
		a = append(a, "examine "+w.at)
	}
	return append(a, "inventory", "look")
}

func (w *World) Step(_ context.Context, action string) (envbridge.StepResult, error) {
	if w.done {
		return envbridge.StepResult{}, envbridge.ErrEpisodeOver
	}
	w.steps++
	text := "Nothing happens."
	if slices.Contains(w.admissible(), action) {
		text = w.apply(action)
	}
	res := envbridge.StepResult{Observation: envbridge.Observation{Text: text, Admissible: w.admissible()}, MaxScore: 1}
	if w.won() {
		res.Reward, res.Score, res.Done, res.Won = 1, 1, true, true
	} else if w.steps >= w.task.MaxSteps {
		res.Done, res.Truncated = true, true
	}
	w.done = res.Done
	return res, nil
}

func (w *World) apply(a string) string {
	switch {
	case strings.HasPrefix(a, "go to "):
		w.at = strings.TrimPrefix(a, "go to ")
		if w.closed[w.at] {
			return fmt.Sprintf("You arrive at %s. The %s is closed.", w.at, w.at)
		}
		return fmt.Sprintf("You arrive at %s. On the %s, you see %s.", w.at, w.at, seeList(w.contents[w.at]))
	case strings.HasPrefix(a, "open "):
		w.closed[w.at] = false
		return fmt.Sprintf("You open the %s. The %s is open. In it, you see %s.", w.at, w.at, seeList(w.contents[w.at]))
	case strings.HasPrefix(a, "close "):
		w.closed[w.at] = true
		return fmt.Sprintf("You close the %s.", w.at)
	case strings.HasPrefix(a, "take "):
		o := strings.TrimPrefix(a, "take ")
		o = o[:strings.Index(o, " from ")]
		w.holding = o
		w.contents[w.at] = slices.DeleteFunc(w.contents[w.at], func(s string) bool { return s == o })
		return fmt.Sprintf("You pick up the %s from the %s.", o, w.at)
	case strings.HasPrefix(a, "put "):
		o := w.holding
		w.holding = ""
		w.contents[w.at] = append(w.contents[w.at], o)
		return fmt.Sprintf("You put the %s in/on the %s.", o, w.at)
	case strings.HasPrefix(a, "heat "), strings.HasPrefix(a, "cool "), strings.HasPrefix(a, "clean "):
		verb := a[:strings.Index(a, " ")]
		map[string]map[string]bool{"heat": w.hot, "cool": w.cold, "clean": w.clean}[verb][w.holding] = true
		return fmt.Sprintf("You %s the %s using the %s.", verb, w.holding, w.at)
	case strings.HasPrefix(a, "use "):
		w.lampOn = true
		return fmt.Sprintf("You turn on the %s.", strings.TrimPrefix(a, "use "))
	case a == "inventory":
		if w.holding == "" {
			return "You are not carrying anything."
		}
		return "You are carrying: a " + w.holding + "."
	case a == "look":
		if w.at == "" {
			return "You are in the middle of a room."
		}
		return fmt.Sprintf("You are facing the %s. Next to it, you see nothing.", w.at)
	case strings.HasPrefix(a, "examine "):
		if w.closed[w.at] {
			return fmt.Sprintf("The %s is closed.", w.at)
		}
		return fmt.Sprintf("On the %s, you see %s.", w.at, seeList(w.contents[w.at]))
	}
	return "Nothing happens."
}

func (w *World) won() bool {
	t := w.task
	if t.typ == "look" {
		return w.lampOn && kindOf(w.holding) == t.obj
	}
	n := 0
	for r, objs := range w.contents {
		if kindOf(r) != t.recep {
			continue
		}
		for _, o := range objs {
			if kindOf(o) != t.obj {
				continue
			}
			ok := true
			switch t.typ {
			case "heat":
				ok = w.hot[o]
			case "cool":
				ok = w.cold[o]
			case "clean":
				ok = w.clean[o]
			}
			if ok {
				n++
			}
		}
	}
	return n >= t.count
}

func (w *World) Close() error { return nil }

// fakeTasks are two tasks of each of three types, with different objects
// and layouts, so that transfer across tasks of a type can be tested.
var fakeTasks = map[string]fakeTask{}

func addFake(id, typ, goal, obj, recep, lamp string, count int, layout map[string][]string) envbridge.Task {
	t := envbridge.Task{ID: id, Type: typ, Goal: goal, Split: "train", MaxSteps: 40}
	fakeTasks[id] = fakeTask{Task: t, typ: typ, obj: obj, recep: recep, lamp: lamp, count: count, layout: layout}
	return t
}

// The tasks.
var (
	HeatApple = addFake("heat-apple", "heat", "heat some apple and put it in countertop", "apple", "countertop", "", 1,
		map[string][]string{"cabinet 2": {"apple 1"}, "countertop 1": {"bread 1", "knife 1"}, "shelf 1": {"vase 1"}})
	HeatMug = addFake("heat-mug", "heat", "put a hot mug in diningtable", "mug", "diningtable", "", 1,
		map[string][]string{"drawer 1": {"mug 1"}, "countertop 2": {"spoon 1"}, "sidetable 1": {"cd 1"}})
	HeatEgg = addFake("heat-egg", "heat", "heat some egg and put it in shelf", "egg", "shelf", "", 1,
		map[string][]string{"fridge 1": {"egg 1", "lettuce 1"}, "countertop 1": {"pan 1"}})
	CleanPlate = addFake("clean-plate", "clean", "put a clean plate in cabinet", "plate", "cabinet", "", 1,
		map[string][]string{"countertop 2": {"plate 1"}, "diningtable 1": {"fork 1"}})
	LookBook = addFake("look-book", "look", "look at book under the desklamp", "book", "", "desklamp", 1,
		map[string][]string{"shelf 1": {"book 1"}, "sidetable 1": {"desklamp 1"}, "drawer 1": {"pen 1"}})
	TwoCD = addFake("two-cd", "two", "put two cd in sidetable", "cd", "sidetable", "", 2,
		map[string][]string{"drawer 1": {"cd 1"}, "shelf 1": {"cd 2"}, "countertop 1": {"book 1"}})
)

// HeatApplePlan solves HeatApple.
var HeatApplePlan = []string{
	"go to cabinet 2", "open cabinet 2", "take apple 1 from cabinet 2", "go to microwave 1",
	"heat apple 1 with microwave 1", "go to countertop 1", "put apple 1 in/on countertop 1",
}

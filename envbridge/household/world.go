package household

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household/hhtext"
)

// recep is one receptacle of a floor plan, with the action strings that name
// it precomputed (they are shared by every episode on the plan).
type recep struct {
	name, kind string
	openable   bool
	goTo       string // "go to cabinet 1"
	open       string // "open cabinet 1"
	close      string // "close cabinet 1"
	examine    string // "examine cabinet 1"
}

// layout is one floor plan: a room type, its numbered receptacles in the
// order the first observation lists them, and its lamp (living rooms and
// bedrooms). Layouts are read-only once built.
type layout struct {
	room      string
	plan      int    // 1..PlansPerRoom
	name      string // "kitchen12"
	receps    []recep
	byName    map[string]int   // receptacle name -> index
	byKind    map[string][]int // receptacle type -> indices
	roomText  string           // "You are in the middle of a room. Looking quickly around you, you see ..."
	lampKind  string           // "desklamp", "floorlamp" or ""
	lampRecep int              // where the lamp stands; -1 without a lamp
	holders   map[string][]int // object type of the room -> receptacles that can hold it
}

func newLayout(seed int64, room string, plan int) *layout {
	r := rand.New(rand.NewPCG(uint64(seed), hash("layout", room, strconv.Itoa(plan))))
	l := &layout{room: room, plan: plan, name: fmt.Sprintf("%s%d", room, plan), byName: map[string]int{}, byKind: map[string][]int{}, lampRecep: -1}
	for _, rr := range roomReceptacles[room] {
		n := rr.min + r.IntN(rr.max-rr.min+1)
		for i := 1; i <= n; i++ {
			name := rr.kind + " " + strconv.Itoa(i)
			l.receps = append(l.receps, recep{
				name: name, kind: rr.kind, openable: Openable(rr.kind),
				goTo: "go to " + name, open: "open " + name, close: "close " + name, examine: "examine " + name,
			})
		}
	}
	// Lamps: every living room and bedroom has one, standing by a desk,
	// sidetable or dresser (each of these rooms has at least one sidetable).
	if room == "livingroom" || room == "bedroom" {
		l.lampKind = lightKinds[r.IntN(len(lightKinds))]
	}
	r.Shuffle(len(l.receps), func(i, j int) { l.receps[i], l.receps[j] = l.receps[j], l.receps[i] })
	names := make([]string, len(l.receps))
	for i, rc := range l.receps {
		l.byName[rc.name] = i
		l.byKind[rc.kind] = append(l.byKind[rc.kind], i)
		names[i] = rc.name
	}
	if l.lampKind != "" {
		var spots []int
		for _, k := range lampHolders {
			spots = append(spots, l.byKind[k]...)
		}
		slices.Sort(spots)
		l.lampRecep = spots[r.IntN(len(spots))]
	}
	l.holders = map[string][]int{}
	for _, kind := range roomObjects[room] {
		for i, rc := range l.receps {
			if CanHold(rc.kind, kind) {
				l.holders[kind] = append(l.holders[kind], i)
			}
		}
	}
	l.roomText = "You are in the middle of a room. Looking quickly around you, you see " + list(names) + "."
	return l
}

// list writes names as ALFWorld does: "a x", "a x, and a y", "a x, a y, and
// a z" (always "a", even before a vowel); "nothing" when empty.
func list(names []string) string {
	var b strings.Builder
	writeList(&b, names)
	return b.String()
}

func writeList(b *strings.Builder, names []string) {
	if len(names) == 0 {
		b.WriteString("nothing")
		return
	}
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
			if i == len(names)-1 {
				b.WriteString("and ")
			}
		}
		b.WriteString("a ")
		b.WriteString(n)
	}
}

// object is one object of a task's start state.
type object struct {
	name, kind                    string
	takeable, light               bool
	cleanable, heatable, coolable bool
	examine, use                  string // "examine apple 1", "use desklamp 1"
}

// spec is one task: its public Task, its layout, goal and start state, and
// the expert's plan. Specs are read-only once built and shared by every Env.
type spec struct {
	task   envbridge.Task
	lay    *layout
	goal   hhtext.Goal
	objs   []object
	start  []int16 // start receptacle index of each object
	byName map[string]int
	// Derived for fast goal checks.
	goalObj  []bool // object is of the goal's type
	destRec  []bool // receptacle is of the goal's destination type
	lampObj  int    // the lamp object's index, -1 without a lamp
	applRec  []bool // receptacle is the task's appliance type
	expert   []string
	template int    // which of the type's two goal templates
	first    string // the first observation
}

func newObject(name, kind string) object {
	o := object{name: name, kind: kind, takeable: true, cleanable: Cleanable(kind), heatable: Heatable(kind),
		coolable: Coolable(kind), examine: "examine " + name}
	if slices.Contains(lightKinds, kind) {
		o.takeable, o.light, o.use = false, true, "use "+name
	}
	return o
}

// goalText renders a goal with one of its type's two templates (ALFWorld's
// templates), ending with a period.
func goalText(g hhtext.Goal, template int) string {
	o, r := g.Object, g.Receptacle
	forms := map[string][2]string{
		hhtext.PickAndPlace: {"put a " + o + " in " + r, "put some " + o + " on " + r},
		hhtext.LookInLight:  {"look at " + o + " under the " + g.Lamp, "examine the " + o + " with the " + g.Lamp},
		hhtext.PickClean:    {"put a clean " + o + " in " + r, "clean some " + o + " and put it in " + r},
		hhtext.PickHeat:     {"put a hot " + o + " in " + r, "heat some " + o + " and put it in " + r},
		hhtext.PickCool:     {"put a cool " + o + " in " + r, "cool some " + o + " and put it in " + r},
		hhtext.PickTwo:      {"put two " + o + " in " + r, "find two " + o + " and put them in " + r},
	}
	return forms[g.Type][template&1] + "."
}

// firstText is the first observation of a task.
func (sp *spec) firstText() string {
	return sp.lay.roomText + "\n\n" + hhtext.TaskPrefix + sp.task.Goal
}

func hash(parts ...string) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// buildSpec draws a task of type typ with goal pairing pk on layout l, or
// reports false when l cannot host it.
func buildSpec(r *rand.Rand, l *layout, typ string, pk pairKey) (*spec, bool) {
	g := hhtext.Goal{Type: typ, Object: pk.obj, Count: 1}
	if typ == hhtext.LookInLight {
		if l.lampKind != pk.dest {
			return nil, false
		}
		g.Lamp = pk.dest
	} else {
		if len(l.byKind[pk.dest]) == 0 {
			return nil, false
		}
		g.Receptacle = pk.dest
	}
	if typ == hhtext.PickTwo {
		g.Count = 2
	}
	if a := appliance[typ]; a != "" && len(l.byKind[a]) == 0 {
		return nil, false
	}
	// Where an object of a type may start: any receptacle that holds it,
	// except (for the goal's type) the destination type, so that the goal
	// never holds at the start.
	spots := func(kind string, target bool) (all, closed []int) {
		for _, i := range l.holders[kind] {
			rc := &l.receps[i]
			if target && rc.kind == g.Receptacle {
				continue
			}
			all = append(all, i)
			if rc.openable {
				closed = append(closed, i)
			}
		}
		return all, closed
	}
	if all, _ := spots(pk.obj, true); len(all) == 0 {
		return nil, false
	}
	sp := &spec{lay: l, goal: g, byName: map[string]int{}, lampObj: -1}
	type placed struct {
		kind string
		at   int
	}
	var ps []placed
	// Targets: one or two (two or three for pick-two). Half of them are put
	// inside a closed receptacle when one can hold them, so that the agent
	// must search and open (the exploration requirement); the rest
	// lie on one of several surfaces.
	n := 1 + r.IntN(2)
	if typ == hhtext.PickTwo {
		n = 2 + r.IntN(2)
	}
	all, closed := spots(pk.obj, true)
	for range n {
		at := all[r.IntN(len(all))]
		if len(closed) > 0 && r.IntN(2) == 0 {
			at = closed[r.IntN(len(closed))]
		}
		ps = append(ps, placed{pk.obj, at})
	}
	// Distractors: other object types of the room, one to three of each.
	pool := slices.Clone(roomObjects[l.room])
	r.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	want := 6 + r.IntN(7)
	for _, kind := range pool {
		if want == 0 {
			break
		}
		if kind == pk.obj {
			continue
		}
		all, _ := spots(kind, false)
		if len(all) == 0 {
			continue
		}
		for range 1 + r.IntN(3) {
			ps = append(ps, placed{kind, all[r.IntN(len(all))]})
		}
		want--
	}
	r.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
	count := map[string]int{}
	for _, p := range ps {
		count[p.kind]++
		name := p.kind + " " + strconv.Itoa(count[p.kind])
		sp.byName[name] = len(sp.objs)
		sp.objs = append(sp.objs, newObject(name, p.kind))
		sp.start = append(sp.start, int16(p.at))
	}
	if l.lampKind != "" {
		name := l.lampKind + " 1"
		sp.lampObj = len(sp.objs)
		sp.byName[name] = len(sp.objs)
		sp.objs = append(sp.objs, newObject(name, l.lampKind))
		sp.start = append(sp.start, int16(l.lampRecep))
	}
	sp.goalObj = make([]bool, len(sp.objs))
	for i, o := range sp.objs {
		sp.goalObj[i] = o.kind == g.Object
	}
	sp.destRec = make([]bool, len(l.receps))
	sp.applRec = make([]bool, len(l.receps))
	for i, rc := range l.receps {
		sp.destRec[i] = rc.kind == g.Receptacle
		sp.applRec[i] = rc.kind == appliance[typ] && appliance[typ] != ""
	}
	sp.template = r.IntN(2)
	return sp, true
}

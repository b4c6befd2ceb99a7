package household

import (
	"slices"
	"strings"

	"github.com/samem/trainer/envbridge/household/hhtext"
)

// Facts of ALFWorld's household domain (../shared/ALFWORLD-FACTS.md, from
// ALFWorld's public task generator) and the scene recipes built on them.

// Rooms are ALFWorld's four scene types.
var rooms = []string{"kitchen", "livingroom", "bedroom", "bathroom"}

// PlansPerRoom is how many floor plans each room type has (ALFWorld has 30).
const PlansPerRoom = 30

// UnseenPlansPerRoom is how many floor plans of each room type are kept out of
// train and valid_seen for valid_unseen.
const UnseenPlansPerRoom = 6

var (
	openableKinds  = set("fridge cabinet microwave drawer safe box")
	heatableKinds  = set("apple bread cup egg mug plate potato tomato")
	coolableKinds  = set("apple bowl bread cup egg lettuce mug pan plate pot potato tomato winebottle")
	cleanableKinds = set("apple bowl butterknife cloth cup dishsponge egg fork kettle knife ladle lettuce mug pan plate pot potato soapbar spatula spoon tomato")
	lightKinds     = []string{"desklamp", "floorlamp"}
	holds          = func() map[string]map[string]bool {
		m := make(map[string]map[string]bool, len(holdsTable))
		for r, objs := range holdsTable {
			m[r] = set(objs)
		}
		return m
	}()
)

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// CanHold reports whether a receptacle of type recep can hold an object of
// type obj, by ALFWorld's placement table ("countertop", "apple" -> true).
func CanHold(recep, obj string) bool { return holds[recep][obj] }

// Openable reports whether receptacles of the type open and close (fridge,
// cabinet, microwave, drawer, safe, box); they start closed.
func Openable(kind string) bool { return openableKinds[kind] }

// Heatable, Coolable and Cleanable report what a microwave, a fridge and a
// sinkbasin can do to an object type.
func Heatable(kind string) bool { return heatableKinds[kind] }

// Coolable: see Heatable.
func Coolable(kind string) bool { return coolableKinds[kind] }

// Cleanable: see Heatable.
func Cleanable(kind string) bool { return cleanableKinds[kind] }

// recepRange is how many receptacles of a kind a floor plan of a room has.
type recepRange struct {
	kind     string
	min, max int
}

// roomReceptacles are plausible furnishings of each room type, drawn from the
// receptacles ALFWorld places there.
var roomReceptacles = map[string][]recepRange{
	"kitchen": {{"cabinet", 3, 9}, {"countertop", 1, 3}, {"drawer", 1, 6}, {"fridge", 1, 1},
		{"microwave", 1, 1}, {"sinkbasin", 1, 1}, {"stoveburner", 2, 4}, {"coffeemachine", 1, 1},
		{"toaster", 1, 1}, {"diningtable", 0, 1}, {"garbagecan", 1, 1}, {"shelf", 0, 3}},
	"livingroom": {{"sofa", 1, 1}, {"armchair", 0, 2}, {"coffeetable", 1, 1}, {"sidetable", 1, 2},
		{"tvstand", 0, 1}, {"drawer", 0, 4}, {"cabinet", 0, 4}, {"shelf", 0, 4}, {"garbagecan", 1, 1},
		{"dresser", 0, 1}, {"ottoman", 0, 1}, {"diningtable", 0, 1}, {"safe", 0, 1}},
	"bedroom": {{"bed", 1, 1}, {"desk", 0, 1}, {"sidetable", 1, 2}, {"dresser", 0, 1}, {"drawer", 2, 6},
		{"shelf", 0, 3}, {"garbagecan", 1, 1}, {"laundryhamper", 0, 1}, {"armchair", 0, 1},
		{"safe", 0, 1}, {"cabinet", 0, 2}},
	"bathroom": {{"bathtubbasin", 0, 1}, {"sinkbasin", 1, 2}, {"cabinet", 1, 4}, {"countertop", 1, 1},
		{"toilet", 1, 1}, {"toiletpaperhanger", 1, 1}, {"towelholder", 0, 1}, {"handtowelholder", 0, 1},
		{"garbagecan", 1, 1}, {"drawer", 0, 4}, {"shelf", 0, 2}, {"cart", 0, 1}},
}

// roomObjects are the movable objects each room type may contain.
var roomObjects = map[string][]string{
	"kitchen": strings.Fields("apple bread egg lettuce potato tomato mug cup bowl plate pan pot kettle knife " +
		"butterknife fork spoon spatula ladle dishsponge saltshaker peppershaker soapbottle winebottle glassbottle " +
		"papertowel creditcard cellphone"),
	"livingroom": strings.Fields("remotecontrol keychain creditcard newspaper laptop book pillow box statue vase " +
		"watch tissuebox wateringcan cellphone cd pen pencil candle plate bowl"),
	"bedroom": strings.Fields("alarmclock book cellphone cd creditcard keychain laptop pen pencil pillow mug " +
		"baseballbat basketball tennisracket bowl cloth vase statue watch box remotecontrol"),
	"bathroom": strings.Fields("soapbar soapbottle toiletpaper spraybottle candle cloth handtowel towel " +
		"dishsponge plunger tissuebox glassbottle"),
}

// lampHolders are the receptacles a lamp stands on (a simplification: in
// ALFWorld a floor lamp stands on the floor; here it stands by a piece of
// furniture and is reached by going there).
var lampHolders = []string{"desk", "sidetable", "dresser"}

// taskRooms says which room types each task type is generated in, as in
// ALFWorld: cleaning needs a sinkbasin, heating and cooling a kitchen, and
// looking a lamp.
var taskRooms = map[string][]string{
	hhtext.PickAndPlace: rooms,
	hhtext.LookInLight:  {"livingroom", "bedroom"},
	hhtext.PickClean:    {"kitchen", "bathroom"},
	hhtext.PickHeat:     {"kitchen"},
	hhtext.PickCool:     {"kitchen"},
	hhtext.PickTwo:      rooms,
}

// appliance is the receptacle type a task type needs, or "".
var appliance = map[string]string{
	hhtext.PickClean: "sinkbasin",
	hhtext.PickHeat:  "microwave",
	hhtext.PickCool:  "fridge",
}

// TaskTypes lists the six task types in ALFWorld's order.
func TaskTypes() []string {
	return []string{hhtext.PickAndPlace, hhtext.LookInLight, hhtext.PickClean, hhtext.PickHeat, hhtext.PickCool, hhtext.PickTwo}
}

// PaperOracleSteps returns the fixed optimal step counts per task type that
// SAMem uses for SPL on ALFWorld (seed 002 Appendix B.3, Table 4: Put 4,
// Clean 6, Heat 7, Cool 6, Examine 4, Puttwo 8). The household world's own
// per-task figure is Task.OracleSteps (the expert's plan length).
func PaperOracleSteps() map[string]int {
	return map[string]int{
		hhtext.PickAndPlace: 4,
		hhtext.PickClean:    6,
		hhtext.PickHeat:     7,
		hhtext.PickCool:     6,
		hhtext.LookInLight:  4,
		hhtext.PickTwo:      8,
	}
}

// suits reports whether an object type can be the object of a task type.
func suits(typ, obj string) bool {
	switch typ {
	case hhtext.PickClean:
		return Cleanable(obj)
	case hhtext.PickHeat:
		return Heatable(obj)
	case hhtext.PickCool:
		return Coolable(obj)
	}
	return true
}

// destinationOK reports whether a receptacle type may be a task's
// destination: it holds the object and is not the appliance the task uses.
func destinationOK(typ, recep, obj string) bool {
	return CanHold(recep, obj) && recep != appliance[typ]
}

// pairKey names an (object type, destination type) goal pairing; for look
// tasks the destination is the lamp type.
type pairKey struct{ obj, dest string }

// allPairs lists every goal pairing any task type can use in any room, in a
// stable order.
func allPairs() []pairKey {
	seen := map[pairKey]bool{}
	var out []pairKey
	for _, typ := range TaskTypes() {
		for _, room := range taskRooms[typ] {
			for _, obj := range roomObjects[room] {
				if !suits(typ, obj) {
					continue
				}
				var dests []string
				if typ == hhtext.LookInLight {
					dests = lightKinds
				} else {
					for _, rr := range roomReceptacles[room] {
						if destinationOK(typ, rr.kind, obj) {
							dests = append(dests, rr.kind)
						}
					}
				}
				for _, d := range dests {
					k := pairKey{obj, d}
					if !seen[k] {
						seen[k] = true
						out = append(out, k)
					}
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b pairKey) int {
		if c := strings.Compare(a.obj, b.obj); c != 0 {
			return c
		}
		return strings.Compare(a.dest, b.dest)
	})
	return out
}

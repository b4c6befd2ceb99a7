package offline

import (
	"regexp"
	"strings"

	"github.com/samem/trainer/arigraph"
	"github.com/samem/trainer/envbridge"
)

// Rules is the offline triplet extractor: regular expressions over the
// household world's text (ALFWorld phrasing) and common interactive-fiction
// phrasing (TextWorld templates: "You are in the kitchen", "There is a key on
// the table", "exits: north, east"). It reads only the observation text and
// the action that produced it. The zero value is ready to use.
type Rules struct{}

// Observed is what the rules read from one observation.
type Observed struct {
	Triplets []arigraph.Triplet
	// Location is where the observation says the agent is ("" when it does
	// not say): a room in fiction, a receptacle in the household world.
	Location string
}

var (
	reExitsList = regexp.MustCompile(`(?i)\bexits?\s*(?:are|is)?\s*:\s*([a-z, ]+)`)
	reDirWord   = regexp.MustCompile(`(?i)\b(north|south|east|west|northeast|northwest|southeast|southwest|up|down)\b`)
	reExitWords = regexp.MustCompile(`(?i)\b(exit|entranceway|doorway|door|passage|path|going|leading|leads|way)\b`)
	reDoorLead  = regexp.MustCompile(`(?i)\b(?:a|an) (open|closed|locked) ([a-z0-9 -]+?(?:door|gate|hatch|portal)) leading (north|south|east|west|up|down)`)
	reOnFloor   = regexp.MustCompile(`(?i)there (?:is|are) ((?:a|an|the|some) [^.]+?) on the (?:floor|ground)\b`)
	reThereOn   = regexp.MustCompile(`(?i)(?:there (?:is|are)|you see) ((?:a|an|the|some) [^.]+?) (on|in) (?:the|a|an) ([a-z0-9 -]+?)\s*[.!]`)
	reOnYouSee  = regexp.MustCompile(`(?i)\bon the ([a-z0-9 -]+?),? you (?:can )?(?:see|make out|spot) ([^.]+)\.`)
	reContains  = regexp.MustCompile(`(?i)\bthe ([a-z0-9 -]+?) contains ([^.]+)\.`)
	reSee       = regexp.MustCompile(`(?i)\b(?:you see|you can see|you make out|you can make out|you notice|you spy|it's|you spot|you can spot) ((?:a|an) [^.!?]+?)[.!?]`)
	reTake      = regexp.MustCompile(`(?i)\byou (?:take|pick up) (?:the )?([a-z0-9 -]+?)(?: from (?:the )?([a-z0-9 -]+?))?\s*[.!]`)
	reCarrying  = regexp.MustCompile(`(?i)you are carrying:?\s*([^.]+?)(?:\.|$)`)
	reDrop      = regexp.MustCompile(`(?i)\byou drop (?:the )?([a-z0-9 -]+?)(?: on the (?:floor|ground))?\s*[.!]`)
	rePut       = regexp.MustCompile(`(?i)\byou (?:put|place|insert) (?:the )?([a-z0-9 -]+?) (in|on|into|onto|in/on) (?:the )?([a-z0-9 -]+?)\s*[.!]`)
	reOpenClose = regexp.MustCompile(`(?i)\byou (open|close|unlock|lock) (?:the )?([a-z0-9 -]+?)(?: with (?:the )?[a-z0-9 -]+?)?\s*[.!]`)
	reCooked    = regexp.MustCompile(`(?i)\byou (fried|grilled|roasted|diced|sliced|chopped|cooked|fry|grill|roast|dice|slice|chop) (?:the )?([a-z0-9 -]+?)\s*[.!]`)
	reRecipe    = regexp.MustCompile(`(?is)ingredients:\s*(.*?)\s*directions:\s*(.*?)(?:\n\s*\n|>|$)`)
	// household.
	reHHRoom    = regexp.MustCompile(`(?i)looking quickly around you, you see ([^.]+)\.`)
	reHHOn      = regexp.MustCompile(`(?i)\b(on|in) the ([a-z]+ \d+), you see ([^.]+)\.`)
	reHHInIt    = regexp.MustCompile(`(?i)you open the ([a-z]+ \d+)\.(?: the [a-z]+ \d+ is open\.)? in it, you see ([^.]+)\.`)
	reHHClosed  = regexp.MustCompile(`(?i)the ([a-z]+ \d+) is (closed|open)\.`)
	reHHPick    = regexp.MustCompile(`(?i)you pick up the ([a-z]+ \d+) from the ([a-z]+ \d+)\.`)
	reHHPut     = regexp.MustCompile(`(?i)you (?:put|move) the ([a-z]+ \d+) (in|on|in/on|to) the ([a-z]+ \d+)\.`)
	reHHProcess = regexp.MustCompile(`(?i)you (clean|heat|cool) the ([a-z]+ \d+) using the ([a-z]+ \d+)\.`)
	reHHTurnOn  = regexp.MustCompile(`(?i)you turn on the ([a-z]+ \d+)\.`)
)

var processedState = map[string]string{"clean": "clean", "heat": "hot", "cool": "cool"}

var cookState = map[string]string{
	"fried": "fried", "fry": "fried", "grilled": "grilled", "grill": "grilled", "roasted": "roasted", "roast": "roasted",
	"diced": "diced", "dice": "diced", "sliced": "sliced", "slice": "sliced", "chopped": "chopped", "chop": "chopped", "cooked": "cooked",
}

// splitList splits "a cabinet 1, a cabinet 2, and a toaster 1" (or "x and y")
// into entity names without articles; "nothing" gives none.
func splitList(s string) []string {
	s = strings.ReplaceAll(s, ", and ", ", ")
	s = strings.ReplaceAll(s, " and ", ", ")
	var out []string
	for _, p := range strings.Split(s, ",") {
		p = arigraph.NormEntity(p)
		p = strings.TrimPrefix(p, "raw ") // "a raw yellow potato" is the yellow potato
		if p != "" && p != "nothing" {
			out = append(out, p)
		}
	}
	return out
}

// Extract reads the triplets and the agent's location from one observation.
// prevLoc is where the agent was before action; a move by compass direction
// that changes the location adds the spatial edge "new, is D of, old".
func (Rules) Extract(style envbridge.Style, text, action, prevLoc string) Observed {
	if style == envbridge.StyleHousehold {
		return extractHousehold(text)
	}
	return extractFiction(text, action, prevLoc)
}

func extractHousehold(text string) Observed {
	var o Observed
	o.Location, _ = arigraph.Locate(envbridge.StyleHousehold, text, "", "")
	add := func(s, r, ob string) {
		o.Triplets = append(o.Triplets, arigraph.Triplet{Subject: s, Relation: r, Object: ob}.Norm())
	}
	if m := reHHRoom.FindStringSubmatch(text); m != nil {
		for _, r := range splitList(m[1]) {
			add("room", arigraph.RelHasReceptacle, r)
		}
	}
	for _, m := range reHHOn.FindAllStringSubmatch(text, -1) {
		rec := arigraph.NormEntity(m[2])
		add(rec, arigraph.RelState, arigraph.StateSearched)
		for _, it := range splitList(m[3]) {
			add(it, "is "+strings.ToLower(m[1]), rec)
		}
	}
	for _, m := range reHHInIt.FindAllStringSubmatch(text, -1) {
		rec := arigraph.NormEntity(m[1])
		add(rec, arigraph.RelState, "open")
		add(rec, arigraph.RelState, arigraph.StateSearched)
		for _, it := range splitList(m[2]) {
			add(it, "is in", rec)
		}
	}
	for _, m := range reHHClosed.FindAllStringSubmatch(text, -1) {
		add(m[1], arigraph.RelState, strings.ToLower(m[2]))
	}
	for _, m := range reHHPick.FindAllStringSubmatch(text, -1) {
		add(m[1], "is in", arigraph.Inventory)
	}
	for _, m := range reHHPut.FindAllStringSubmatch(text, -1) {
		rel := "is in"
		if strings.EqualFold(m[2], "on") {
			rel = "is on"
		}
		add(m[1], rel, m[3])
	}
	for _, m := range reHHProcess.FindAllStringSubmatch(text, -1) {
		add(m[2], arigraph.RelState, processedState[strings.ToLower(m[1])])
	}
	for _, m := range reHHTurnOn.FindAllStringSubmatch(text, -1) {
		add(m[1], arigraph.RelState, "on")
	}
	return o
}

// sentences splits text at sentence ends, keeping line breaks as ends too.
func sentences(text string) []string {
	text = strings.ReplaceAll(text, "\n\n", ". ")
	text = strings.ReplaceAll(text, "\n", " ")
	var out []string
	for _, s := range regexp.MustCompile(`[.!?]+\s+`).Split(text, -1) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func extractFiction(text, action, prevLoc string) Observed {
	var o Observed
	add := func(s, r, ob string) {
		t := arigraph.Triplet{Subject: s, Relation: r, Object: ob}.Norm()
		if t.Valid() {
			o.Triplets = append(o.Triplets, t)
		}
	}
	loc, spatial := arigraph.Locate(envbridge.StyleFiction, text, action, prevLoc)
	o.Location = loc
	here := loc
	if here == "" {
		here = arigraph.NormEntity(prevLoc)
	}
	// Exits: an explicit list, or any sentence that talks of a way out and names directions.
	if m := reExitsList.FindStringSubmatch(text); m != nil && loc != "" {
		for _, d := range reDirWord.FindAllString(m[1], -1) {
			add(loc, arigraph.RelHasExit, strings.ToLower(d))
		}
	}
	if loc != "" {
		for _, s := range sentences(text) {
			if reExitWords.MatchString(s) {
				for _, d := range reDirWord.FindAllString(s, -1) {
					add(loc, arigraph.RelHasExit, strings.ToLower(d))
				}
			}
		}
		for _, m := range reDoorLead.FindAllStringSubmatch(text, -1) {
			add(m[2], arigraph.RelState, strings.ToLower(m[1]))
			add(m[2], "leads", strings.ToLower(m[3])+" of "+loc)
		}
	}
	// A move by compass direction that arrived somewhere new.
	o.Triplets = append(o.Triplets, spatial...)
	if here != "" {
		for _, m := range reOnFloor.FindAllStringSubmatch(text, -1) {
			for _, it := range splitList(m[1]) {
				add(it, "is in", here)
			}
		}
	}
	for _, m := range reThereOn.FindAllStringSubmatch(text, -1) {
		if strings.EqualFold(m[3], "floor") || strings.EqualFold(m[3], "ground") {
			continue
		}
		for _, it := range splitList(m[1]) {
			add(it, "is "+strings.ToLower(m[2]), m[3])
		}
	}
	for _, m := range reOnYouSee.FindAllStringSubmatch(text, -1) {
		for _, it := range splitList(m[2]) {
			add(it, "is on", m[1])
		}
	}
	for _, m := range reContains.FindAllStringSubmatch(text, -1) {
		for _, it := range splitList(m[2]) {
			add(it, "is in", m[1])
		}
	}
	if here != "" {
		for _, m := range reSee.FindAllStringSubmatch(text, -1) {
			phrase := m[1]
			if strings.Contains(phrase, " on the ") || strings.Contains(phrase, " in the ") {
				continue // handled by reThereOn
			}
			for _, it := range splitList(phrase) {
				for _, st := range []string{"closed ", "open ", "locked "} {
					if rest, ok := strings.CutPrefix(it, st); ok {
						add(rest, arigraph.RelState, strings.TrimSpace(st))
						it = rest
					}
				}
				add(it, "is in", here)
			}
		}
	}
	for _, m := range reTake.FindAllStringSubmatch(text, -1) {
		add(m[1], "is in", arigraph.Inventory)
	}
	if m := reCarrying.FindStringSubmatch(text); m != nil {
		for _, it := range splitList(m[1]) {
			add(it, "is in", arigraph.Inventory)
		}
	}
	for _, m := range reDrop.FindAllStringSubmatch(text, -1) {
		if here != "" {
			add(m[1], "is in", here)
		}
	}
	for _, m := range rePut.FindAllStringSubmatch(text, -1) {
		rel := "is in"
		if p := strings.ToLower(m[2]); p == "on" || p == "onto" {
			rel = "is on"
		}
		add(m[1], rel, m[3])
	}
	for _, m := range reOpenClose.FindAllStringSubmatch(text, -1) {
		state := map[string]string{"open": "open", "close": "closed", "unlock": "unlocked", "lock": "locked"}[strings.ToLower(m[1])]
		if strings.HasPrefix(strings.ToLower(m[2]), "copy of") {
			continue // "You open the copy of ..." is reading a book
		}
		add(m[2], arigraph.RelState, state)
	}
	for _, m := range reCooked.FindAllStringSubmatch(text, -1) {
		add(m[2], arigraph.RelState, cookState[strings.ToLower(m[1])])
	}
	if m := reRecipe.FindStringSubmatch(text); m != nil {
		for _, line := range strings.Split(m[1], "\n") {
			if it := arigraph.NormEntity(line); it != "" {
				add("recipe", "requires", it)
			}
		}
		for _, line := range strings.Split(m[2], "\n") {
			line = arigraph.NormEntity(line)
			verb, obj, ok := strings.Cut(line, " ")
			if !ok {
				continue
			}
			if st, ok := cookState[verb]; ok {
				add(arigraph.NormEntity(obj), "to be", st)
			}
		}
	}
	return o
}

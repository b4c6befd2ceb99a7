package zmachine

import (
	"slices"
	"strings"
)

// A template is a command pattern of the valid-action search: its words,
// with "OBJ" where an object goes (none, one or two), as Jericho's template
// action generator writes them ("take OBJ", "turn on OBJ", "put OBJ in
// OBJ"). Each word is one word, chosen among the grammar's synonyms.
type template struct {
	words []string
	objs  int
	tier  int // the order templates are tried in: lower first
	// heldFirst: a two-object template whose first object is carried
	// ("put OBJ in OBJ"); else its second is ("unlock OBJ with OBJ"), or,
	// for "from", "out" and "off", the first is inside the second ("take
	// OBJ from OBJ").
	heldFirst bool
	from      bool
}

// String is the template as written ("put OBJ in OBJ").
func (t template) String() string { return strings.Join(t.words, " ") }

// fill puts objects into the template's OBJ slots.
func (t template) fill(objs ...string) string {
	var b strings.Builder
	n, k := len(t.words), 0
	for _, w := range t.words {
		if w == "OBJ" && k < len(objs) {
			w = objs[k]
			k++
		}
		n += len(w)
	}
	b.Grow(n) // one allocation
	k = 0
	for i, w := range t.words {
		if i > 0 {
			b.WriteByte(' ')
		}
		if w == "OBJ" && k < len(objs) {
			w = objs[k]
			k++
		}
		b.WriteString(w)
	}
	return b.String()
}

// Tiers of templates: what players do most comes first (the search stops
// at its instruction budget, so later tiers are tried where they are
// cheap). A template's tier is its verb's; a verb the lists below do not
// know (a game's own: "frotz", "gnusto", "cock") is tierOwn.
const (
	tierMove  = iota // directions
	tierTake         // take and drop one object
	tierAlone        // commands without an object
	tierCore         // open, put in, give to, unlock with, wear ...
	tierOwn          // verbs of the game's own
	tierMore         // the other common verbs
	tierRest         // other two-object templates
)

// verbTier ranks the verbs players use: tierTake, tierCore, tierMore. A
// synonym is written as the verb the list has (Jericho's grammar lists
// "carry/catch/get/grab/hold/remove/take": the template says "take").
var verbTier = map[string]int{
	"take": tierTake, "drop": tierTake,
	"open": tierCore, "close": tierCore, "put": tierCore, "insert": tierCore, "give": tierCore,
	"unlock": tierCore, "lock": tierCore, "wear": tierCore, "remove": tierCore, "enter": tierCore,
	"push": tierCore, "pull": tierCore, "turn": tierCore, "press": tierCore, "move": tierCore,
	"light": tierCore, "switch": tierCore, "climb": tierCore, "eat": tierCore, "drink": tierCore,
	"read": tierCore, "search": tierCore, "show": tierCore, "throw": tierCore, "fill": tierCore,
	"empty": tierCore, "tie": tierCore, "untie": tierCore, "kill": tierCore, "attack": tierCore,
	"get": tierCore, "exit": tierCore, "examine": tierCore,
	"look": tierMore, "touch": tierMore, "rub": tierMore, "shake": tierMore, "wave": tierMore,
	"squeeze": tierMore, "dig": tierMore, "cut": tierMore, "burn": tierMore, "blow": tierMore,
	"knock": tierMore, "kiss": tierMore, "listen": tierMore, "smell": tierMore, "pour": tierMore,
	"break": tierMore, "extinguish": tierMore, "lift": tierMore, "raise": tierMore,
	"lower": tierMore, "pick": tierMore, "ring": tierMore, "play": tierMore, "wind": tierMore,
	"inflate": tierMore, "deflate": tierMore, "set": tierMore, "sit": tierMore, "stand": tierMore,
	"go": tierMore, "buy": tierMore, "hit": tierMore, "feed": tierMore, "tell": tierMore,
	"ask": tierMore, "answer": tierMore, "say": tierMore, "jump": tierMore, "swim": tierMore,
	"wake": tierMore, "follow": tierMore, "clean": tierMore, "hide": tierMore, "sleep": tierMore,
	"wait": tierMore, "pray": tierMore, "yes": tierMore, "no": tierMore, "point": tierMore,
}

// preferred orders the synonyms a template is written with: the first of
// these among a slot's words, else the slot's first word. The words are
// the ones walkthroughs and players type ("take", not "carry").
var preferred = []string{
	"take", "put", "unlock", "give", "drop", "open", "close", "examine", "look", "read", "push", "pull", "turn",
	"move", "wear", "remove", "eat", "drink", "show", "throw", "kill", "attack",
	"lock", "enter", "climb", "light", "search", "press", "insert", "get", "exit",
	"switch", "fill", "empty", "tie", "untie", "wave", "touch", "rub", "shake", "cut", "burn",
	"dig", "go", "sit", "stand", "listen", "smell", "kiss", "break", "blow", "ring", "wait",
	"yes", "no",
	"in", "into", "on", "onto", "to", "with", "at", "from", "out", "off", "up", "down", "under",
	"behind", "over", "through",
}

// verbRank is a verb's place in preferred (after all of it when absent).
func verbRank(v string) int {
	if i := slices.Index(preferred, v); i >= 0 {
		return i
	}
	return len(preferred)
}

// metaVerbs are the commands that play nothing in the story (they save,
// report or configure) or only talk: never candidates.
var metaVerbs = map[string]bool{
	"save": true, "restore": true, "restart": true, "quit": true, "q": true, "die": true,
	"score": true, "full": true, "fullscore": true, "verbose": true, "brief": true,
	"superbrief": true, "normal": true, "script": true, "unscript": true, "noscript": true,
	"transcript": true, "version": true, "undo": true, "again": true, "g": true, "oops": true,
	"notify": true, "pronouns": true, "nouns": true, "help": true, "hint": true, "hints": true,
	"about": true, "credits": true, "credit": true, "info": true, "menu": true, "clue": true,
	"clues": true, "walkthrough": true, "walkthru": true, "walkthrou": true, "i": true,
	"inv": true, "inventory": true, "l": true, "exits": true, "places": true, "objects": true,
	"recording": true, "replay": true, "random": true, "trace": true, "actions": true,
	"messages": true, "routines": true, "purloin": true, "abstract": true, "tree": true,
	"showobj": true, "gonear": true, "scope": true, "diagnose": true, "diagno": true,
	"super": true, "superb": true, "verbos": true, "versio": true, "restar": true, "restor": true,
	"unscri": true, "transcrip": true, "transc": true, "invent": true, "invento": true, "verify": true, "verif": true, "author": true, "license": true, "hello": true, "hi": true, "#": true,
	"*": true,
}

// skipPreps are the words after which a template's object is no object in
// view (a topic, a number, a direction): those templates are not tried.
var skipPreps = map[string]bool{"about": true, "for": true, "topic": true}

// fullWord writes out a word the dictionary stores cut (version 3 keeps 6
// letters: "examin"), where a known word begins so.
func fullWord(w string, res int) string {
	if len(w) < res {
		return w
	}
	for _, p := range preferred {
		if len(p) > len(w) && strings.HasPrefix(p, w) {
			return p
		}
	}
	for v := range verbTier {
		if len(v) > len(w) && strings.HasPrefix(v, w) {
			return v
		}
	}
	return w
}

// choose picks the word a template slot is written with (its words
// already written out).
func choose(alts []string) string {
	for _, p := range preferred {
		if slices.Contains(alts, p) {
			return p
		}
	}
	return alts[0]
}

// phrasal are the verb-and-particle commands with one object that players
// type ("turn on lamp", "get in boat"), in the order a template's
// synonyms are written with: a template "V P OBJ" of the grammar is tried
// as the first of these its words allow, and not at all when none fits
// (unless its verb is the game's own). Other particle forms ("take out
// OBJ", "turn OBJ on") say nothing these and the plain verbs do not.
var phrasal = []string{
	"turn on", "turn off", "switch on", "switch off", "take off", "put on", "pick up",
	"get in", "get on", "get off", "get out", "climb in", "climb on", "climb up", "climb down",
	"climb over", "climb out", "sit on", "sit in", "lie on", "lie in", "stand on", "jump over",
	"jump in", "jump off", "jump on", "look in", "look under", "look behind", "search in",
	"knock on", "blow out", "blow up", "dig in", "wake up", "push on", "hide in", "hide under",
	"swim in", "dive in", "go in", "go to", "empty out", "fill up", "lift up", "pull up",
	"push down", "wind up", "hang up", "tear up", "cut up", "burn down",
}

// parseGrammar reads Jericho's verb grammar (JerichoGame.Grammar): templates
// separated by ";", words by spaces, synonyms by "/", objects "OBJ". Left
// out: meta commands; templates about topics; two objects side by side
// ("give OBJ OBJ"); a particle after the object ("turn OBJ on": "turn on
// OBJ" says it); a verb and particle that are not phrasal (unless the verb
// is the game's own); commands of more than two words without an object.
// Each template is written once. res is the dictionary's word length (for
// cut words).
func parseGrammar(grammar string, res int) []template {
	var out []template
	seen := map[string]bool{}
	for _, line := range strings.Split(grammar, ";") {
		t, ok := parseTemplate(strings.Fields(line), res)
		if !ok {
			continue
		}
		t.classify()
		if k := t.String(); !seen[k] {
			seen[k] = true
			out = append(out, t)
		}
	}
	// "put OBJ into OBJ" says what "put OBJ in OBJ" says, where the
	// grammar has both (Inform's library lists them as separate lines):
	// each such candidate would cost a turn for the same world.
	kept := out[:0]
	for _, t := range out {
		if c := samePrep(t); c != "" && seen[c] {
			continue
		}
		kept = append(kept, t)
	}
	return kept
}

// prepSynonyms are prepositions that say what another does, as the
// Inform library's grammar reads them.
var prepSynonyms = map[string]string{"into": "in", "inside": "in", "onto": "on", "upon": "on"}

// samePrep is the template written with the plain preposition ("put OBJ
// in OBJ" for "put OBJ into OBJ"), or "" when it has none to replace.
func samePrep(t template) string {
	words := slices.Clone(t.words)
	changed := false
	for i, w := range words {
		if p, ok := prepSynonyms[w]; ok && i > 0 {
			words[i] = p
			changed = true
		}
	}
	if !changed {
		return ""
	}
	return strings.Join(words, " ")
}

// parseTemplate reads one template of a Jericho grammar; ok is false for
// one parseGrammar leaves out.
func parseTemplate(toks []string, res int) (template, bool) {
	if len(toks) == 0 {
		return template{}, false
	}
	var slots [][]string
	objs := 0
	for i, tok := range toks {
		if tok == "OBJ" {
			if i > 0 && toks[i-1] == "OBJ" {
				return template{}, false
			}
			objs++
			slots = append(slots, nil)
			continue
		}
		alts := strings.Split(strings.ToLower(tok), "/")
		for j := range alts {
			alts[j] = fullWord(alts[j], res)
		}
		// a meta verb, or a command whose words say one ("take
		// inventory", "script off")
		if (i == 0 || !slices.Contains(toks, "OBJ")) && allMeta(alts) || skipPreps[alts[0]] {
			return template{}, false
		}
		slots = append(slots, alts)
	}
	if objs > 2 || objs == 0 && len(slots) > 2 {
		return template{}, false
	}
	last := len(slots) - 1
	if objs > 0 && slots[last] != nil {
		return template{}, false // a particle after the last object
	}
	t := template{objs: objs}
	own := true // the verb is none of the common ones
	for _, v := range slots[0] {
		if _, ok := verbTier[v]; ok {
			own = false
		}
	}
	if objs == 1 && len(slots) == 3 && !own {
		// "V P OBJ": the first phrasal command its words allow
		for _, ph := range phrasal {
			f := strings.Fields(ph)
			if slices.Contains(slots[0], f[0]) && slices.Contains(slots[1], f[1]) {
				t.words = []string{f[0], f[1], "OBJ"}
				return t, true
			}
		}
		return template{}, false
	}
	if objs == 1 && len(slots) > 3 || objs == 2 && slots[1] != nil {
		return template{}, false // "V P P OBJ", "V P OBJ P OBJ"
	}
	for _, sl := range slots {
		if sl == nil {
			t.words = append(t.words, "OBJ")
		} else {
			t.words = append(t.words, choose(sl))
		}
	}
	return t, true
}

func allMeta(alts []string) bool {
	for _, a := range alts {
		if !metaVerbs[a] {
			return false
		}
	}
	return true
}

// classify sets a template's tier and, for two objects, the roles.
func (t *template) classify() {
	tier, known := verbTier[t.words[0]]
	if !known {
		tier = tierOwn
	}
	switch t.objs {
	case 0:
		tier = tierAlone
	case 1:
		// "take OBJ" and "drop OBJ" alone are tierTake; "take off OBJ"
		// is a core template.
		if tier == tierTake && len(t.words) != 2 {
			tier = tierCore
		}
	case 2:
		i := slices.Index(t.words, "OBJ")
		mid := t.words[i+1]
		switch mid {
		case "with":
			t.heldFirst = false
		case "from", "out", "off":
			t.from = true
		default:
			t.heldFirst = true
		}
		switch tier {
		case tierTake, tierCore:
			tier = tierCore
			if !commonTwo[[2]string{t.words[0], mid}] {
				tier = tierRest
			}
		case tierOwn:
		default:
			tier = tierRest
		}
	}
	t.tier = tier
}

// commonTwo are the two-object forms of the common verbs that players use
// and that do what no one-object command does: the others ("drop OBJ in
// OBJ", "throw OBJ on OBJ", "put OBJ behind OBJ", "push OBJ to OBJ") are
// another verb's action written again or seldom do anything, and go to
// tierRest, after every one-object command. "take OBJ from OBJ" is left
// out: it leads where "take OBJ", tried earlier, does.
var commonTwo = map[[2]string]bool{
	{"put", "in"}: true, {"put", "on"}: true, {"unlock", "with"}: true, {"lock", "with"}: true,
	{"give", "to"}: true, {"throw", "at"}: true, {"attack", "with"}: true, {"tie", "to"}: true,
	{"cut", "with"}: true, {"open", "with"}: true, {"insert", "in"}: true, {"show", "to"}: true,
}

// defaultTemplates are the templates of a game without a Jericho grammar:
// the common verbs with one object, the common two-object forms, and a few
// commands without one; each is kept when the game's dictionary holds its
// words as verb and prepositions.
var defaultTemplates = func() []template {
	var ts []template
	for _, v := range []string{"take", "drop", "open", "close", "push", "pull", "turn", "move", "eat",
		"drink", "wear", "remove", "light", "extinguish", "enter", "climb", "kill", "attack",
		"break", "lock", "unlock", "wave", "ring", "inflate", "deflate", "fill", "empty",
		"shake", "rub", "burn", "search", "touch", "squeeze", "kiss", "buy", "cut", "switch", "read"} {
		ts = append(ts, template{words: []string{v, "OBJ"}, objs: 1})
	}
	for _, p := range [][2]string{{"put", "in"}, {"put", "on"}, {"unlock", "with"}, {"lock", "with"},
		{"give", "to"}, {"throw", "at"}, {"attack", "with"}, {"tie", "to"}, {"cut", "with"},
		{"open", "with"}, {"insert", "in"}, {"show", "to"}, {"take", "from"}} {
		ts = append(ts, template{words: []string{p[0], "OBJ", p[1], "OBJ"}, objs: 2})
	}
	for _, v := range []string{"stand", "sit", "jump", "pray", "dig", "swim", "climb", "exit", "sleep", "wake", "wait"} {
		ts = append(ts, template{words: []string{v}})
	}
	for i := range ts {
		ts[i].classify()
	}
	return ts
}()

// informSynonyms are pairs of one-object templates that the Inform
// library's grammar (6 and 7 alike) sends to one action: "climb X",
// "climb up X" and "climb over X" are Climb, "put on X" and "wear X" Wear,
// "enter X" and "get in X" Enter, "turn on X" and "switch X" SwitchOn
// (Inform 7: "switch X" is "turn off X" when it is on). Each of a pair
// leads to the world the other does, at the cost of a turn of the budget.
var informSynonyms = [][2]string{
	{"climb OBJ", "climb up OBJ"}, {"climb OBJ", "climb over OBJ"}, {"put on OBJ", "wear OBJ"},
	{"enter OBJ", "get in OBJ"}, {"turn on OBJ", "switch OBJ"},
}

// dropSynonyms is ts (in the order they are tried) without the later of
// each pair of informSynonyms that are both in ts.
func dropSynonyms(ts []template) []template {
	at := map[string]int{}
	for i, t := range ts {
		at[t.String()] = i
	}
	drop := map[int]bool{}
	for _, p := range informSynonyms {
		i, ok1 := at[p[0]]
		j, ok2 := at[p[1]]
		if ok1 && ok2 {
			drop[max(i, j)] = true
		}
	}
	out := ts[:0:0]
	for i, t := range ts {
		if !drop[i] {
			out = append(out, t)
		}
	}
	return out
}

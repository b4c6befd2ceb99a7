package zmachine

import (
	"slices"
	"strings"
	"testing"
)

// changes reports whether cmd, played from env's state, changes the world.
func changes(t *testing.T, env *Env, cmd string) bool {
	t.Helper()
	sr, err := env.search(1, []string{cmd}, true)
	if err != nil {
		t.Fatal(err)
	}
	return sr.extraOK[0] && sr.extra[0] != sr.base
}

// TestRepeatPair: in spirit, after "put egg in pot" the next step puts the
// flour there too; "put flour in pot" comes before every take and drop
// (the flour, edible like the egg, among the first carried things tried)
// and changes the world.
func TestRepeatPair(t *testing.T) {
	env, walk := playTo(t, "spirit.z5", 226)
	if walk[225] != "put egg in pot" || walk[226] != "put flour in pot" {
		t.Fatalf("walkthrough steps 225, 226: %q, %q", walk[225], walk[226])
	}
	cands := env.candidates()
	i := slices.Index(cands, "put flour in pot")
	if i < 0 {
		t.Fatalf("%d candidates lack %q", len(cands), "put flour in pot")
	}
	for _, c := range cands[:i] {
		if strings.HasPrefix(c, "take ") || strings.HasPrefix(c, "drop ") {
			t.Fatalf("%q (candidate %d) comes after %q", "put flour in pot", i, c)
		}
	}
	if !changes(t, env, "put flour in pot") {
		t.Errorf("%q changes nothing", "put flour in pot")
	}
}

// TestPairsAboutAThing: in curses before "give kappa to callimachus", the
// carried thing taken last given to the character in view comes with the
// one-object commands about the character, before those about the things
// carried (it came after all of them, in the two-object templates, before),
// and changes the world; nothing is given or shown to a thing that is no
// character.
func TestPairsAboutAThing(t *testing.T) {
	env, walk := playTo(t, "curses.z5", 528)
	const want = "give kappa to callimachus"
	if walk[528] != want {
		t.Fatalf("walkthrough step 528: %q", walk[528])
	}
	list := env.candidateList()
	i := slices.IndexFunc(list, func(c candidate) bool { return c.text == want })
	if i < 0 {
		t.Fatalf("%d candidates lack %q", len(list), want)
	}
	if j := slices.IndexFunc(list, func(c candidate) bool { return c.text == "examine kappa" }); j < i {
		t.Errorf("%q (candidate %d) comes after %q (%d)", want, i, "examine kappa", j)
	}
	if !changes(t, env, want) {
		t.Errorf("%q changes nothing", want)
	}
	for _, c := range list {
		f := strings.Fields(c.text)
		if (f[0] == "give" || f[0] == "show") && slices.Contains(f, "to") && c.obj != "callimachus" && c.obj != "apollonius" {
			t.Errorf("%q gives to %q, no character", c.text, c.obj)
		}
	}
}

// TestSeveralNamed: in sorcerer's store room, whose description names a
// vial, a calendar and a matchbook, "take vial, calendar and matchbook"
// is a candidate and leads to the world of the walkthrough's "get vial,
// calendar and matchbook" (the objects taken in the same order).
func TestSeveralNamed(t *testing.T) {
	env, walk := playTo(t, "sorcerer.z3", 18)
	const want = "take vial, calendar and matchbook"
	if !slices.Contains(env.candidates(), want) {
		t.Fatalf("candidates lack %q", want)
	}
	sr, err := env.search(1, []string{want, walk[18]}, true)
	if err != nil {
		t.Fatal(err)
	}
	if !sr.extraOK[0] || !sr.extraOK[1] || sr.extra[0] != sr.extra[1] || sr.extra[0] == sr.base {
		t.Errorf("%q and %q lead to different worlds (or none changes)", want, walk[18])
	}
}

func TestSecondOK(t *testing.T) {
	l := &attrLayouts[0]
	w := World{Objects: []WorldObject{
		{ID: 1, Name: "branch", Attrs: []int{l.scenery}},
		{ID: 2, Name: "woman", Attrs: []int{l.animate}},
		{ID: 3, Name: "box", Attrs: []int{l.container}},
	}}
	ps := &pairScope{ids: map[string]int{"branch": 1, "woman": 2, "box": 3}, animate: []string{"woman"}, w: w, layout: l,
		fits: func(name, verb string, second bool) bool {
			o, _ := w.Object(map[string]int{"branch": 1, "woman": 2, "box": 3}[name])
			return l.kindOK(verb, o.Attrs, second)
		}}
	tmpl := func(s string) template {
		tm := template{words: strings.Fields(s), objs: 2}
		tm.classify()
		return tm
	}
	for _, c := range []struct {
		tmpl, b string
		want    bool
	}{
		{"tie OBJ to OBJ", "branch", true},
		{"give OBJ to OBJ", "branch", false},
		{"give OBJ to OBJ", "box", false},
		{"give OBJ to OBJ", "woman", true},
		{"show OBJ to OBJ", "woman", true},
		{"put OBJ in OBJ", "box", true},
		{"put OBJ in OBJ", "branch", false},
	} {
		tm := tmpl(c.tmpl)
		if got := ps.secondOK(tm, tm.between(), c.b); got != c.want {
			t.Errorf("secondOK(%q, %q) = %v, want %v", c.tmpl, c.b, got, c.want)
		}
	}
}

func TestLatestFirst(t *testing.T) {
	ids := map[string]int{"lamp": 5, "key": 7, "sword": 9, "note": 11}
	got := latestFirst([]int{9, 5, 7}, []string{"lamp", "key", "note", "sword"}, ids)
	if want := []string{"sword", "lamp", "key", "note"}; !slices.Equal(got, want) {
		t.Errorf("latestFirst = %q, want %q", got, want)
	}
}

func TestListOfAndNameIn(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{[]string{"a"}, "a"},
		{[]string{"a", "b"}, "a and b"},
		{[]string{"a", "b c", "d"}, "a, b c and d"},
	} {
		if got := listOf(c.in); got != c.want {
			t.Errorf("listOf(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	names := []string{"pot", "flower", "small key", "key"}
	if got := nameIn(names, strings.Fields("small flower pot")); got != "flower" && got != "pot" {
		t.Errorf("nameIn small flower pot = %q", got)
	}
	if got := nameIn(names, strings.Fields("the small key")); got != "small key" {
		t.Errorf("nameIn the small key = %q, want the longest, %q", got, "small key")
	}
	if got := nameIn(names, strings.Fields("coffin")); got != "" {
		t.Errorf("nameIn coffin = %q, want none", got)
	}
	if j := jaccard([]int{1, 2, 3}, []int{2, 3, 4}); j != 0.5 {
		t.Errorf("jaccard = %v, want 0.5", j)
	}
}

// FuzzRepeatPair: repeatPair reads the command played last, which an
// agent writes: any text gives at most maxRepeat commands, each the
// template filled with a carried thing and a thing in view, and no panic.
func FuzzRepeatPair(f *testing.F) {
	for _, s := range []string{"put egg in pot", "put in in in", "give  to", "put the small key in the pot please", "", "put egg in", "in in in in in"} {
		f.Add(s)
	}
	l := &attrLayouts[0]
	w := World{Objects: []WorldObject{{ID: 1, Name: "pot", Attrs: []int{l.container}}, {ID: 2, Name: "egg"}, {ID: 3, Name: "flour"}, {ID: 4, Name: "small key"}}}
	ids := map[string]int{"pot": 1, "egg": 2, "flour": 3, "small key": 4}
	ts := []template{{words: []string{"put", "OBJ", "in", "OBJ"}, objs: 2}, {words: []string{"give", "OBJ", "to", "OBJ"}, objs: 2}}
	for i := range ts {
		ts[i].classify()
	}
	inView := []string{"pot", "egg", "flour", "small key"}
	f.Fuzz(func(t *testing.T, last string) {
		ps := &pairScope{near: []string{"pot", "egg"}, carried: []string{"flour", "small key"}, ids: ids, w: w, layout: l,
			fits: func(string, string, bool) bool { return true }}
		var got []string
		ps.repeatPair(ts, inView, last, func(obj, c string) {
			if !slices.Contains(inView, obj) {
				t.Errorf("object %q is not in view", obj)
			}
			got = append(got, c)
		})
		if len(got) > maxRepeat {
			t.Errorf("%d commands from %q", len(got), last)
		}
		for _, c := range got {
			if !strings.HasPrefix(c, "put ") && !strings.HasPrefix(c, "give ") {
				t.Errorf("%q from %q", c, last)
			}
		}
	})
}

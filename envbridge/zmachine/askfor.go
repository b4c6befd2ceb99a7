package zmachine

// Asking for a thing: a character holds what the player needs ("ask
// sherman for pigeon", "ask hacker for keyring"). Each thing in view that
// something in view holds is asked for from its holder: where the
// attribute layout is known, only from a character; where it is not
// (Infocom), from any holder, the parser's or the game's refusal being
// cheap, at most maxAskedFor per search.

// maxAskedFor bounds the things asked for per search.
const maxAskedFor = 4

// askForCandidates adds "ask H for X" for the things X in view (not
// carried) that H holds.
func (e *Env) askForCandidates(dict *dictionary, near []string, holder map[string]string, animate []string, layoutKnown bool, addAbout func(obj, c string)) {
	if !dict.verb("ask") || !dict.has("for") {
		return
	}
	isActor := map[string]bool{}
	for _, a := range animate {
		isActor[a] = true
	}
	k := 0
	for _, x := range near {
		h := holder[x]
		if h == "" || k >= maxAskedFor || layoutKnown && !isActor[h] {
			continue
		}
		k++
		addAbout(x, "ask "+h+" for "+x)
	}
}

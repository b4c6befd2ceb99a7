package zmachine

import "strings"

// Suggested commands: a game that prints the commands it would take in
// capitals ("[Grunk can try ASK GNOME ABOUT LIGHTNING or SHOW HAT TO
// GNOME ...]", "You could TALK TO THE GUARD.") says what it expects next.
// Each run of two or more words in capitals whose first word is a verb of
// the dictionary and whose other words the dictionary holds is tried,
// lowercased, right after the moves: at most maxSuggested of the last
// text's, in its order.

// maxSuggested bounds the suggested commands a search tries.
const maxSuggested = 12

// capitalRuns are the runs of two words or more written in capitals (one
// letter or more each; an apostrophe or hyphen inside a word kept) in
// text, lowercased, in order.
func capitalRuns(text string) []string {
	var out, run []string
	flush := func() {
		if len(run) >= 2 {
			out = append(out, strings.ToLower(strings.Join(run, " ")))
		}
		run = run[:0]
	}
	for _, f := range strings.Fields(text) {
		w := strings.TrimRight(strings.TrimLeft(f, "[(\"'"), ".,!?;:)]\"'")
		caps := w != "" && strings.ToUpper(w) == w && strings.ToLower(w) != w
		for _, r := range w {
			if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '\'' || r == '-') {
				caps = false
				break
			}
		}
		if !caps {
			flush()
			continue
		}
		run = append(run, w)
		if w != f && strings.ContainsAny(f[len(f)-1:], ".,!?;:)]\"") {
			flush() // punctuation after the word ends the run
		}
	}
	flush()
	return out
}

// suggestedCommands are the commands the last text suggests in capitals
// that the dictionary reads: a verb first, every word known.
func suggestedCommands(dict *dictionary, text string) []string {
	var out []string
	for _, r := range capitalRuns(clip(text)) {
		ws := strings.Fields(r)
		if !dict.verb(ws[0]) || metaVerbs[ws[0]] {
			continue
		}
		known := true
		for _, w := range ws[1:] {
			if !dict.has(w) {
				known = false
				break
			}
		}
		if known && len(out) < maxSuggested {
			out = append(out, r)
		}
	}
	return out
}

package zmachine

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxLineBytes bounds one line of game output as the parsers see it: a longer
// line is cut, so that no single line (a flood of text without a newline) can
// make a parser's work or memory grow without bound.
const maxLineBytes = 4096

// maxScanBytes bounds how much of a turn's text the parsers look at (64 KiB).
const maxScanBytes = 64 << 10

// Score is a score report parsed from the interpreter's output.
type Score struct {
	Score float64 // points so far
	Max   float64 // best possible; 0 when the game has no score ("out of a possible 0")
}

// The score reports, after whitespace is collapsed to single spaces (games wrap
// long lines at 80 columns):
//
//	Infocom:            "Your score is 0 (total of 350 points), in 1 move."
//	Inform / TextWorld: "You have so far scored 10 out of a possible 360, in 2 turns."
//	at the end:         "In that game you scored 4 out of a possible 4, in 9 turns."
//	                    "You scored 4 out of a possible 4, in 9 turns." (TextWorld)
var (
	reInfocomScore = regexp.MustCompile(`(?i)your score (?:is|would be) (-?\d{1,9}) \(total of (\d{1,9}) points?\)`)
	reInformScore  = regexp.MustCompile(`(?i)(?:you have so far scored|in that game you scored|you scored|you have scored) (-?\d{1,9}) out of a possible (\d{1,9})`)
)

// ParseScore finds the last score report in text. ok is false when the text
// holds none (a game without a score answers the verb with an error).
func ParseScore(text string) (s Score, ok bool) {
	flat := flatten(text)
	best := -1
	for _, re := range []*regexp.Regexp{reInfocomScore, reInformScore} {
		all := re.FindAllStringSubmatchIndex(flat, -1)
		if len(all) == 0 {
			continue
		}
		m := all[len(all)-1]
		if m[0] < best {
			continue
		}
		sc, err1 := strconv.ParseFloat(flat[m[2]:m[3]], 64)
		mx, err2 := strconv.ParseFloat(flat[m[4]:m[5]], 64)
		if err1 != nil || err2 != nil {
			continue
		}
		best = m[0]
		s, ok = Score{Score: sc, Max: mx}, true
	}
	return s, ok
}

// Ending says how a game ended, as read from its closing text.
type Ending int

// Endings. EndNone means the game goes on.
const (
	EndNone  Ending = iota
	EndWon          // "*** You have won ***", TextWorld's "*** The End ***"
	EndLost         // "*** You lost! ***", "*** You have died ***"
	EndOther        // the game ended (final score, restart prompt) without a known verdict
)

func (e Ending) String() string {
	switch e {
	case EndNone:
		return "none"
	case EndWon:
		return "won"
	case EndLost:
		return "lost"
	default:
		return "ended"
	}
}

var (
	// An end banner: Inform prints "*** You have died ***"; Infocom games use
	// four stars and wider spacing ("****  You have died  ****").
	reBanner = regexp.MustCompile(`(?m)^\s*\*{2,}\s*([^*\n]{1,80}?)\s*\*{2,}\s*$`)
	// The closing lines an Inform or TextWorld game prints after the banner.
	reRestart  = regexp.MustCompile(`(?i)would you like to (?:restart|start over|restore)`)
	reFinalSum = regexp.MustCompile(`(?i)(?:in that game you scored|^you scored -?\d+ out of a possible)`)
)

// ParseEnding reports whether text closes the game, and how. "*** The End ***"
// counts as won: it is what TextWorld prints on success (its failures print
// "*** You lost! ***"), and for other games the banner words decide.
func ParseEnding(text string) Ending {
	text = clip(text)
	// Cheap tests first: every banner has "**", every closing line
	// "would you like to" or "scored" (the regexps cost tens of
	// microseconds a turn, more than the interpreter in-process).
	hasBanner := strings.Contains(text, "**")
	low := strings.ToLower(text)
	if !hasBanner && !strings.Contains(low, "would you like to") && !strings.Contains(low, "scored") {
		return EndNone
	}
	for _, m := range reBanner.FindAllStringSubmatch(text, -1) {
		words := strings.ToLower(m[1])
		switch {
		case strings.Contains(words, "won") || strings.Contains(words, "win") ||
			strings.Contains(words, "the end") || strings.Contains(words, "triumph"):
			return EndWon
		case strings.Contains(words, "lost") || strings.Contains(words, "died") ||
			strings.Contains(words, "dead") || strings.Contains(words, "lose") ||
			strings.Contains(words, "failed"):
			return EndLost
		}
	}
	for _, line := range lines(text) {
		if reFinalSum.MatchString(strings.TrimSpace(line)) || reRestart.MatchString(line) {
			return EndOther
		}
	}
	return EndNone
}

// reNotice matches a score notice on a line of its own: Inform's
// "[Your score has just gone up by ten points.]" and TextWorld's
// "Your score has just gone up by one point.", up or down.
var reNotice = regexp.MustCompile(`(?i)^\s*[\[(]?\s*(?:your|the) score has (?:just )?(?:gone|went) (?:up|down) by [\w -]{1,40} points?\.?\s*[\])]?\s*$`)

// Clean turns one turn's output into an observation: score notices and
// interpreter warnings are removed, the trailing prompt is cut, lines are cut
// to maxLineBytes (the caller bounds the whole text), runs of blank lines become one, and the text is trimmed.
func Clean(text string) string {
	text = stripPrompt(text)
	var b strings.Builder
	blank := false
	for _, line := range lines(text) {
		line = strings.TrimRight(line, " \t\r")
		if hasScoreWord(line) && reNotice.MatchString(line) || isWarning(line) {
			continue
		}
		if line == "" {
			blank = true
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
			if blank {
				b.WriteByte('\n')
			}
		}
		blank = false
		b.WriteString(line)
	}
	return b.String()
}

// isWarning reports a line from the interpreter, not the game: dfrotz prints
// "Warning: @get_child called with object 0 (PC = ad67) (will ignore ...".
func isWarning(line string) bool {
	return strings.HasPrefix(line, "Warning: @") || strings.HasPrefix(line, "occurrences)")
}

// promptEnd reports whether buf, the output so far of one turn, ends with the
// interpreter waiting for input: its last line is a prompt (">" or "> ", with
// an optional status before it such as "[The Court Yard]> ") or a question
// ("Are you sure you want to quit? ", "Please enter a filename [x.qzl]: ").
// The interpreter flushes its output before it reads, so the prompt is the
// last thing written.
func promptEnd(buf []byte) bool {
	i := len(buf) - 1
	// at most one trailing space
	if i >= 0 && buf[i] == ' ' {
		i--
	}
	if i < 0 {
		return false
	}
	switch buf[i] {
	case '>':
		return true
	case '?', ':':
		return buf[len(buf)-1] == ' '
	}
	return false
}

// stripPrompt removes the trailing prompt line (the last line when it is a
// prompt) from a turn's output.
func stripPrompt(text string) string {
	if !promptEnd([]byte(text)) {
		return text
	}
	j := strings.LastIndexByte(text, '\n')
	last := text[j+1:]
	if t := strings.TrimSpace(last); strings.HasSuffix(t, ">") && len(t) <= 80 {
		return text[:j+1]
	}
	return text
}

// lines splits text into lines, each cut to maxLineBytes.
func lines(text string) []string {
	ls := strings.Split(text, "\n")
	for i, l := range ls {
		if len(l) > maxLineBytes {
			cut := maxLineBytes
			for cut > 0 && !utf8.RuneStart(l[cut]) {
				cut--
			}
			ls[i] = l[:cut]
		}
	}
	return ls
}

// clip cuts text to maxScanBytes.
func clip(text string) string {
	if len(text) > maxScanBytes {
		return text[:maxScanBytes]
	}
	return text
}

// flatten collapses every run of white space to one space, so that a report
// wrapped over two lines still matches, and cuts lines to maxLineBytes.
func flatten(text string) string {
	return strings.Join(strings.Fields(strings.Join(lines(clip(text)), "\n")), " ")
}

// Objective returns the objective a TextWorld game states in its opening
// text, or "" when it states none. The opening is the ASCII-art banner, then
// (when the game has an objective) a paragraph with the objective, two blank
// lines, and the first room. dfrotz drops the bold room header, so the
// objective is told apart by the double blank line after it.
func Objective(opening string) string {
	_, rest := splitBanner(strings.ReplaceAll(clip(opening), "\r", ""))
	rest = strings.TrimLeft(rest, "\n ")
	k := strings.Index(rest, "\n\n\n")
	if k < 0 {
		return ""
	}
	obj := strings.Join(strings.Fields(rest[:k]), " ")
	if obj == "" || strings.HasPrefix(obj, "-=") {
		return ""
	}
	return obj
}

// hasScoreWord reports a line that holds "score" in any case (every score
// notice does), before the notice regexp is tried.
func hasScoreWord(line string) bool {
	for i := 0; i+5 <= len(line); i++ {
		if (line[i]|0x20) == 's' && strings.EqualFold(line[i:i+5], "score") {
			return true
		}
	}
	return false
}

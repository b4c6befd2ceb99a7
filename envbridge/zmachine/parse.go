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

// The score reports games give, after whitespace is collapsed to single
// spaces (games wrap long lines at 80 columns). The Infocom and Inform
// standard forms, and the variants of "out of a possible N" the Jericho
// suite's games use:
//
//	"Your score is 0 (total of 350 points), in 1 move."              Infocom
//	"Your score would be 0 (out of 80 points)."                       planetfall
//	"You have so far scored 10 out of a possible 360, in 2 turns."    Inform
//	"In that game you scored 4 out of a possible 4, in 9 turns."      Inform, at the end
//	"Your score is 0 of a possible 200, in 0 turns."                  later Infocom
//	"Your potential is 0 of a possible 7, in 0 moves."                zork3
//	"Your score is 0 points out of 150, in 0 moves."                  hollywood
//	"In 0 turns, you have achieved a score of 0 out of 25 points."    plundered
//	"If you quit now you will have scored 10 points out of a maximum of 250."
//	"[You have 0 out of 100 points, ...]"  "Grunk have 0 out of 7 so far."
//
// A report opens with a word that names the score ("score", "scored",
// "potential"; in an answer to the score command also "have"), then within a
// few words the score, and "of" or "out of" the maximum.
var (
	reScoreReport  = regexp.MustCompile(`(?i)\b(?:score|scored|potential)\b[^.\d\n]{0,40}?(-?\d{1,9})\s*(?:points?\s*)?\(?(?:total of|out of|of)\s+(?:a possible\s+|a maximum of\s+|a total of\s+)?(\d{1,9})\b`)
	reAnswerReport = regexp.MustCompile(`(?i)\b(?:score|scored|potential|have|has)\b[^.\d\n]{0,40}?(-?\d{1,9})\s*(?:points?\s*)?\(?(?:total of|out of|of)\s+(?:a possible\s+|a maximum of\s+|a total of\s+)?(\d{1,9})\b`)
	reReportMoves  = regexp.MustCompile(`(?i)\bin (\d{1,9}) (?:turns?|moves?)\b`)
)

// ParseScore finds the last score report in a turn's text (a final report,
// the answer to the score verb). ok is false when the text holds none (a
// game without a score answers the verb with an error).
func ParseScore(text string) (s Score, ok bool) {
	r, ok := parseReport(text, reScoreReport)
	return Score{Score: r.Score, Max: r.Max}, ok
}

// Report is a game's own account of its score: the answer to the score
// command, or the final report.
type Report struct {
	Score    float64
	Max      float64 // the maximum the report names
	Moves    int     // the turns or moves it names, when HasMoves
	HasMoves bool
}

// ParseAnswer reads the answer to the score command: the forms ParseScore
// knows and those that open with "have" ("Grunk have 0 out of 7 so far"),
// which in other text could be anything but a score. The moves are the
// "in N turns" (or moves) of the same answer.
func ParseAnswer(text string) (Report, bool) {
	return parseReport(text, reAnswerReport)
}

func parseReport(text string, re *regexp.Regexp) (Report, bool) {
	flat := flatten(text)
	all := re.FindAllStringSubmatchIndex(flat, -1)
	if len(all) == 0 {
		return Report{}, false
	}
	m := all[len(all)-1]
	sc, err1 := strconv.ParseFloat(flat[m[2]:m[3]], 64)
	mx, err2 := strconv.ParseFloat(flat[m[4]:m[5]], 64)
	if err1 != nil || err2 != nil {
		return Report{}, false
	}
	r := Report{Score: sc, Max: mx}
	// The moves of this report: "in N turns" after it, or before it in the
	// same sentence ("In 0 turns, you have achieved a score of ...").
	from := strings.LastIndexAny(flat[:m[0]], ".!?]") + 1
	to := len(flat)
	if k := strings.IndexAny(flat[m[1]:], ".!?]"); k >= 0 {
		to = m[1] + k
	}
	if mv := reReportMoves.FindStringSubmatch(flat[from:to]); mv != nil {
		if n, err := strconv.Atoi(mv[1]); err == nil {
			r.Moves, r.HasMoves = n, true
		}
	}
	return r, true
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
	reRestart  = regexp.MustCompile(`(?i)would (?:you|i) like to (?:restart|start over|restore)`)
	reFinalSum = regexp.MustCompile(`(?i)(?:in that game you scored|^you scored -?\d+ out of a possible)`)
)

// ParseEnding reports whether text closes the game, and how. "*** The End ***"
// counts as won: it is what TextWorld prints on success (its failures print
// "*** You lost! ***"), and for other games the banner words decide. The
// game has also ended when its text ends with the final question, which
// names RESTART and RESTORE (or QUIT, or UNDO) in every Infocom, Inform 6
// and Inform 7 game: "Would you like to RESTART, RESTORE a saved game or
// QUIT?", "(Type RESTART, RESTORE, or QUIT)", "Do you want to restart the
// story, restore a saved position, or quit?", "Time for Grunk to RESTART or
// RESTORE a saved story or UNDO ...".
func ParseEnding(text string) Ending {
	text = clip(text)
	// Cheap tests first: every banner has "**", every closing line
	// "restart" or "scored" (the regexps cost tens of microseconds a
	// turn, more than the interpreter in-process).
	hasBanner := strings.Contains(text, "**")
	low := strings.ToLower(text)
	final := strings.Contains(low, "restart") && finalQuestion(low)
	if !hasBanner && !final && !strings.Contains(low, "scored") {
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
	if final {
		return EndOther
	}
	for _, line := range lines(text) {
		if reFinalSum.MatchString(strings.TrimSpace(line)) {
			return EndOther
		}
	}
	return EndNone
}

// finalQuestion reports the final question at the end of a turn's text
// (lower case): its last lines name "restart" with "restore", "quit" or
// "undo", or ask "would you like to restart".
func finalQuestion(low string) bool {
	tail := strings.TrimRight(low, " \n>")
	// the last four lines
	for i, n := len(tail)-1, 0; i >= 0; i-- {
		if tail[i] == '\n' && i+1 < len(tail) && tail[i+1] != '\n' {
			if n++; n == 4 {
				tail = tail[i+1:]
				break
			}
		}
	}
	if len(tail) > 600 {
		tail = tail[len(tail)-600:]
	}
	if reRestart.MatchString(tail) {
		return true
	}
	return strings.Contains(tail, "restart") &&
		(strings.Contains(tail, "restore") || strings.Contains(tail, "quit") || strings.Contains(tail, "undo"))
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

package zmachine

import (
	"regexp"
	"strconv"
	"strings"
)

// Status is what a status line says.
type Status struct {
	Score    float64
	Moves    int
	HasScore bool
	HasMoves bool
}

// The status lines games draw in their upper window, as seen in the Inform 6
// library ("Score: 10    Moves: 3", "Turns: 3"), Infocom v4+ games ("Score:
// 10  Moves: 3") and the Inform 7 default ("10/3", score then turns).
var (
	reStatusScore = regexp.MustCompile(`(?i)\bscore:?\s*(-?\d{1,6})\b`)
	reStatusMoves = regexp.MustCompile(`(?i)\b(?:moves|turns):?\s*(\d{1,7})\b`)
	reStatusPair  = regexp.MustCompile(`(?:^|\s)(-?\d{1,6})/(\d{1,7})\s*$`)
)

// ParseStatus reads score and moves from the lines of a status line. A
// custom pattern (a binding's, with named groups "score" and optionally
// "moves") is tried first when re is not nil.
func ParseStatus(lines []string, re *regexp.Regexp) (st Status) {
	for _, raw := range lines {
		line := raw
		if len(line) > maxLineBytes {
			line = line[:maxLineBytes]
		}
		if re != nil {
			if m := re.FindStringSubmatch(line); m != nil {
				if v, ok := groupFloat(re, m, "score"); ok {
					st.Score, st.HasScore = v, true
				}
				if v, ok := groupFloat(re, m, "moves"); ok {
					st.Moves, st.HasMoves = int(v), true
				}
				continue
			}
		}
		if m := reStatusScore.FindStringSubmatch(line); m != nil {
			if v, err := strconv.ParseFloat(m[1], 64); err == nil {
				st.Score, st.HasScore = v, true
			}
		}
		if m := reStatusMoves.FindStringSubmatch(line); m != nil {
			if v, err := strconv.Atoi(m[1]); err == nil {
				st.Moves, st.HasMoves = v, true
			}
		}
		if !st.HasScore {
			if m := reStatusPair.FindStringSubmatch(strings.TrimRight(line, " ")); m != nil {
				s, err1 := strconv.ParseFloat(m[1], 64)
				mv, err2 := strconv.Atoi(m[2])
				if err1 == nil && err2 == nil {
					st.Score, st.HasScore = s, true
					st.Moves, st.HasMoves = mv, true
				}
			}
		}
	}
	return st
}

// ParseWording finds the last match of a game's own score wording (a
// binding's pattern with a named group "score") in text.
func ParseWording(re *regexp.Regexp, text string) (float64, bool) {
	if re == nil {
		return 0, false
	}
	all := re.FindAllStringSubmatch(flatten(text), -1)
	if len(all) == 0 {
		return 0, false
	}
	return groupFloat(re, all[len(all)-1], "score")
}

func groupFloat(re *regexp.Regexp, m []string, name string) (float64, bool) {
	i := re.SubexpIndex(name)
	if i < 0 || i >= len(m) || m[i] == "" {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(m[i]), 64)
	if err != nil {
		return 0, false
	}
	return v, true
}

package cdmem

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/samem/trainer/internal/fold"
	replyfmt "github.com/samem/trainer/internal/reply"
)

// Errors of the reply parsers: a reply the role cannot use.
var (
	ErrNoExpert     = errors.New("cdmem: reply holds no expert encoding")
	ErrNoReflection = errors.New("cdmem: reply holds no reflection")
	ErrNoSummary    = errors.New("cdmem: reply holds no summary")
	ErrNoGuidance   = errors.New("cdmem: reply holds no guidance item")
)

// Bounds on parsed texts, so that a runaway reply cannot crowd the acting
// prompt, which shows them at every step.
const (
	maxFieldLen      = 1000
	maxReflectionLen = 800
	maxSummaryLen    = 1000
	maxItemLen       = 300
	maxItems         = 12
)

var (
	reLocations = regexp.MustCompile(`(?is)\(?1\)?\s*locations?\s*:(.*?)(?:\(?2\)?\s*functions?\s*:|expert\s+actions?\s*:|$)`)
	reFunctions = regexp.MustCompile(`(?is)\(?2\)?\s*functions?\s*:(.*?)(?:expert\s+actions?\s*:|$)`)
	reActions   = regexp.MustCompile(`(?is)expert\s+actions?\s*:(.*)$`)
)

// ParseExpert reads an expert encoding: its locations, functions and
// actions fields. A reply in which none of the fields is found keeps its
// whole text as the actions, locations and functions left empty (spec
// Sec. 7: the code's regular expressions yield empty fields silently); an
// empty reply is ErrNoExpert.
func ParseExpert(reply string) (Expert, error) {
	s, _ := replyfmt.Clean(strings.ToValidUTF8(reply, ""))
	s = strings.NewReplacer("**", "", "__", "").Replace(s)
	var ex Expert
	if m := reLocations.FindStringSubmatch(s); m != nil {
		ex.Locations = replyfmt.OneLine(m[1], maxFieldLen)
	}
	if m := reFunctions.FindStringSubmatch(s); m != nil {
		ex.Functions = replyfmt.OneLine(m[1], maxFieldLen)
	}
	if m := reActions.FindStringSubmatch(s); m != nil {
		ex.Actions = replyfmt.OneLine(m[1], maxFieldLen)
	}
	if ex == (Expert{}) {
		ex.Actions = replyfmt.OneLine(s, maxFieldLen)
	}
	if ex == (Expert{}) {
		return ex, fmt.Errorf("expert reply %q: %w", replyfmt.Short(reply, 80), ErrNoExpert)
	}
	return ex, nil
}

// ParseExpertAnswer reads an expert encoding: the JSON's fields when the
// server was asked for the schema and answered with it, else the text.
func ParseExpertAnswer(a replyfmt.Answer) (Expert, bool, error) {
	var v struct {
		Locations string `json:"locations"`
		Functions string `json:"functions"`
		Actions   string `json:"actions"`
	}
	if a.Structured && replyfmt.Decode(a.Text, &v) {
		ex := Expert{Locations: replyfmt.OneLine(v.Locations, maxFieldLen), Functions: replyfmt.OneLine(v.Functions, maxFieldLen), Actions: replyfmt.OneLine(v.Actions, maxFieldLen)}
		if ex == (Expert{}) {
			return ex, false, fmt.Errorf("expert answer %q: %w", replyfmt.Short(a.Text, 80), ErrNoExpert)
		}
		return ex, false, nil
	}
	ex, err := ParseExpert(a.Text)
	_, repaired := replyfmt.Clean(a.Text)
	return ex, repaired, err
}

// ParseReflection reads a reflection: the text after a leading
// "Reflection:" label (or the whole reply), tidied to one line.
func ParseReflection(reply string) (string, error) {
	s := replyfmt.LabelledLine(reply, "reflection:", maxReflectionLen)
	if s == "" {
		return "", fmt.Errorf("reflection reply %q: %w", replyfmt.Short(reply, 80), ErrNoReflection)
	}
	return s, nil
}

// ParseReflectionAnswer reads a reflection answer: the JSON's "reflection"
// when structured, else the text.
func ParseReflectionAnswer(a replyfmt.Answer) (string, bool, error) {
	var v struct {
		Reflection string `json:"reflection"`
	}
	if a.Structured && replyfmt.Decode(a.Text, &v) {
		s, err := ParseReflection(v.Reflection)
		return s, false, err
	}
	s, err := ParseReflection(a.Text)
	_, repaired := replyfmt.Clean(a.Text)
	return s, repaired, err
}

// ParseScene reads a scene summary: the text after its last "Summary:"
// (or the whole reply), tidied to one paragraph.
func ParseScene(reply string) (string, error) {
	s, _ := replyfmt.Clean(reply)
	if i := strings.LastIndex(fold.Lower(s), "summary:"); i >= 0 {
		s = s[i+len("summary:"):]
	}
	s = replyfmt.OneLine(s, maxSummaryLen)
	if s == "" {
		return "", fmt.Errorf("scene summary reply %q: %w", replyfmt.Short(reply, 80), ErrNoSummary)
	}
	return s, nil
}

// ParseSceneAnswer reads a scene summary answer: the JSON's "summary" when
// structured, else the text.
func ParseSceneAnswer(a replyfmt.Answer) (string, bool, error) {
	var v struct {
		Summary string `json:"summary"`
	}
	if a.Structured && replyfmt.Decode(a.Text, &v) {
		s, err := ParseScene(v.Summary)
		return s, false, err
	}
	s, err := ParseScene(a.Text)
	_, repaired := replyfmt.Clean(a.Text)
	return s, repaired, err
}

var reItem = regexp.MustCompile(`^\s*(?:\d+[.)]|[-*•])\s+(.*)$`)

// ParseGuidance reads a task summary: the items of the numbered (or
// bulleted) list after its last "Guidance:" label, tidied, at most
// maxItems. A reply without list items is ErrNoGuidance.
func ParseGuidance(reply string) ([]string, error) {
	s, _ := replyfmt.Clean(reply)
	if i := strings.LastIndex(fold.Lower(s), "guidance:"); i >= 0 {
		s = s[i+len("guidance:"):]
	}
	var out []string
	for _, l := range strings.Split(s, "\n") {
		l, _ = replyfmt.Unemphasize(l)
		m := reItem.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if it := replyfmt.OneLine(m[1], maxItemLen); it != "" && len(out) < maxItems {
			out = append(out, it)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("task summary reply %q: %w", replyfmt.Short(reply, 80), ErrNoGuidance)
	}
	return out, nil
}

// ParseGuidanceAnswer reads a task summary answer: the JSON's "guidance"
// items when structured, else the text.
func ParseGuidanceAnswer(a replyfmt.Answer) ([]string, bool, error) {
	var v struct {
		Guidance []string `json:"guidance"`
	}
	if a.Structured && replyfmt.Decode(a.Text, &v) {
		var out []string
		for _, g := range v.Guidance {
			if it := replyfmt.OneLine(g, maxItemLen); it != "" && len(out) < maxItems {
				out = append(out, it)
			}
		}
		if len(out) == 0 {
			return nil, false, fmt.Errorf("task summary answer %q: %w", replyfmt.Short(a.Text, 80), ErrNoGuidance)
		}
		return out, false, nil
	}
	out, err := ParseGuidance(a.Text)
	_, repaired := replyfmt.Clean(a.Text)
	return out, repaired, err
}

package autoguide

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/samem/trainer/internal/fold"
	replyfmt "github.com/samem/trainer/internal/reply"
)

// Errors of the reply parsers: a reply the role cannot use.
var (
	ErrNoContext    = errors.New("autoguide: reply holds no context")
	ErrNoMatch      = errors.New("autoguide: reply holds no context number or None")
	ErrNoGuideline  = errors.New("autoguide: reply holds no guideline")
	ErrNoSelection  = errors.New("autoguide: reply holds no list of guideline numbers")
	ErrNoReflection = errors.New("autoguide: reply holds no reflection")
)

// Bounds on what a parsed reply may hold, so that a runaway reply cannot
// crowd the prompts it is shown in (a context at every step, two guidelines,
// three reflections).
const (
	maxContextLen    = 200
	maxGuidelineLen  = 600
	maxReflectionLen = 600
)

// after returns the text after the last occurrence of label (case
// ignored), or s itself when the label is absent.
func after(s, label string) (string, bool) {
	// fold.Lower keeps byte offsets, so an index into it is one into s.
	if i := strings.LastIndex(fold.Lower(s), label); i >= 0 {
		return s[i+len(label):], true
	}
	return s, false
}

// ParseContext reads the status of a context identification reply: the
// text after its last "SUMMARIZATION:" (or the whole reply), its first
// non-empty line, tidied.
func ParseContext(reply string) (string, error) {
	s, _ := replyfmt.Clean(reply)
	s, _ = after(s, "summarization:")
	for _, l := range strings.Split(s, "\n") {
		if l = replyfmt.OneLine(l, maxContextLen); l != "" {
			return l, nil
		}
	}
	return "", fmt.Errorf("context reply %q: %w", replyfmt.Short(reply, 80), ErrNoContext)
}

// ParseContextAnswer reads a context identification answer: the JSON's
// "summarization" when the server was asked for the schema and answered
// with it, else the text.
func ParseContextAnswer(a replyfmt.Answer) (string, bool, error) {
	var v struct {
		Summarization string `json:"summarization"`
	}
	if a.Structured && replyfmt.Decode(a.Text, &v) {
		c, err := ParseContext(v.Summarization)
		return c, false, err
	}
	c, err := ParseContext(a.Text)
	_, repaired := replyfmt.Clean(a.Text)
	return c, repaired, err
}

var (
	reNone   = regexp.MustCompile(`(?i)\b(none|no match|null)\b`)
	reNumber = regexp.MustCompile(`\d+`)
)

// ParseMatch reads a context matching reply: the index of an earlier label
// (0 to n-1; the first number in the reply), or -1 for None. A number out of
// range and a reply with neither are ErrNoMatch. Index 0 is a match (the
// CDMem re-implementation's reading of 0 as "no match" is a bug, spec
// Sec. 7).
func ParseMatch(reply string, n int) (int, error) {
	s, _ := replyfmt.Clean(reply)
	s, _ = after(s, "answer:")
	num := reNumber.FindStringIndex(s)
	none := reNone.FindStringIndex(s)
	if none != nil && (num == nil || none[0] < num[0]) {
		return -1, nil
	}
	if num == nil {
		return -1, fmt.Errorf("match reply %q: %w", replyfmt.Short(reply, 80), ErrNoMatch)
	}
	i, err := strconv.Atoi(s[num[0]:num[1]])
	if err != nil || i < 0 || i >= n {
		return -1, fmt.Errorf("match reply %q: number out of 0-%d: %w", replyfmt.Short(reply, 80), n-1, ErrNoMatch)
	}
	return i, nil
}

// ParseMatchAnswer reads a matching answer: the JSON's "match" when
// structured, else the text.
func ParseMatchAnswer(a replyfmt.Answer, n int) (int, bool, error) {
	var v struct {
		Match string `json:"match"`
	}
	if a.Structured && replyfmt.Decode(a.Text, &v) {
		i, err := ParseMatch(v.Match, n)
		return i, false, err
	}
	i, err := ParseMatch(a.Text, n)
	_, repaired := replyfmt.Clean(a.Text)
	return i, repaired, err
}

// ParseGuideline reads a guideline extraction reply: the text after its
// last "Guideline:", tidied to one line. A reply without the label is
// ErrNoGuideline (the reasoning alone is no rule).
func ParseGuideline(reply string) (string, error) {
	s, _ := replyfmt.Clean(reply)
	s = strings.NewReplacer("**", "", "__", "").Replace(s)
	g, ok := after(s, "guideline:")
	if ok {
		g = replyfmt.OneLine(g, maxGuidelineLen)
	}
	if !ok || g == "" {
		return "", fmt.Errorf("guideline reply %q: %w", replyfmt.Short(reply, 80), ErrNoGuideline)
	}
	return g, nil
}

// ParseGuidelineAnswer reads an extraction answer: the JSON's "guideline"
// when structured, else the text.
func ParseGuidelineAnswer(a replyfmt.Answer) (string, bool, error) {
	var v struct {
		Guideline string `json:"guideline"`
	}
	if a.Structured && replyfmt.Decode(a.Text, &v) {
		g := replyfmt.OneLine(v.Guideline, maxGuidelineLen)
		if g == "" {
			return "", false, fmt.Errorf("guideline answer %q: %w", replyfmt.Short(a.Text, 80), ErrNoGuideline)
		}
		return g, false, nil
	}
	g, err := ParseGuideline(a.Text)
	_, repaired := replyfmt.Clean(a.Text)
	return g, repaired, err
}

var reList = regexp.MustCompile(`\[([^\[\]]*)\]`)

// ParseSelect reads a selection reply: the numbers (1-based, as shown) of
// its last bracketed list, as 0-based indices below n, without repeats, in
// the reply's order. "[]" is a valid empty choice; a reply with no list,
// or with a number out of range, is ErrNoSelection.
func ParseSelect(reply string, n int) ([]int, error) {
	s, _ := replyfmt.Clean(reply)
	lists := reList.FindAllStringSubmatch(s, -1)
	if len(lists) == 0 {
		return nil, fmt.Errorf("selection reply %q: %w", replyfmt.Short(reply, 80), ErrNoSelection)
	}
	return indices(reNumber.FindAllString(lists[len(lists)-1][1], -1), n, reply)
}

func indices(nums []string, n int, reply string) ([]int, error) {
	out := []int{}
	for _, d := range nums {
		i, err := strconv.Atoi(d)
		if err != nil || i < 1 || i > n {
			return nil, fmt.Errorf("selection reply %q: number %s out of 1-%d: %w", replyfmt.Short(reply, 80), d, n, ErrNoSelection)
		}
		if !containsInt(out, i-1) {
			out = append(out, i-1)
		}
	}
	return out, nil
}

func containsInt(s []int, x int) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// ParseSelectAnswer reads a selection answer: the JSON's "selected" when
// structured, else the text.
func ParseSelectAnswer(a replyfmt.Answer, n int) ([]int, bool, error) {
	var v struct {
		Selected []int `json:"selected"`
	}
	if a.Structured && replyfmt.Decode(a.Text, &v) {
		nums := make([]string, len(v.Selected))
		for i, x := range v.Selected {
			nums[i] = strconv.Itoa(x)
		}
		out, err := indices(nums, n, a.Text)
		return out, false, err
	}
	out, err := ParseSelect(a.Text, n)
	_, repaired := replyfmt.Clean(a.Text)
	return out, repaired, err
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

// ParseReflectionAnswer reads a reflection: the JSON's "reflection" when
// structured, else the text.
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

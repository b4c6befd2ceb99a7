// Package reply undoes the decoration chat models put around the answer a
// prompt asked for, for every role that parses model output: a
// markdown code fence with or without a language tag, a preamble ("Sure!
// Here is my answer:") and a closing remark ("Let me know if ..."), bold or
// italic labels ("**Action:** go to drawer 1"), quotes and trailing
// punctuation around a one-line answer, and a JSON object where a line was
// asked for. Each function reports whether it changed anything, so that
// roles can count the replies they had to repair.
//
// Before any of that, the model's reasoning is taken out (Strip): think
// blocks in the content, closed or left open, and harmony's analysis
// channel; the reasoning fields servers send beside the content never
// reach a parser. Ask is the one way roles ask a model for an answer: it
// takes the reasoning out, treats a reply cut off at its token limit or
// empty once its reasoning is out as unusable whatever its content, asks
// again with more room within a budget, and counts every reply in the
// usage account (parsed, repaired, unusable and what the role did then,
// with reasoning). Decode reads a structured (JSON schema) answer, and
// LoadSchema loads a role's schema from beside its prompts.
package reply

import (
	"encoding/json"
	"regexp"
	"strings"
)

var (
	// A fence line: ``` or ~~~ with an optional language tag.
	reFence = regexp.MustCompile("^\\s*(?:```+|~~~+)\\s*[A-Za-z0-9_+.-]*\\s*$")
	// A chat opener line ("Sure! Here is my answer."): never the answer.
	reOpener = regexp.MustCompile(`(?i)^\s*(?:sure|certainly|of course|okay|ok|alright|absolutely|great|got it|understood)\b[^\n]*$`)
	// An announcing line, a preamble when it ends with a colon ("Here is
	// the summary:", "Based on the observation, my answer is:").
	reAnnounce = regexp.MustCompile(`(?i)^\s*(?:here(?:'s| is| are)|below is|the following|i (?:will|would|'ll|'d)|let me|based on|my (?:answer|reply|response))\b[^\n]*:\s*$`)
	// A closing remark.
	reClosing = regexp.MustCompile(`(?i)^\s*(?:let me know|i hope (?:this|that) helps|hope (?:this|that) helps|feel free|if you (?:need|have|want|would)|is there anything|happy to help|good luck)\b[^\n]*$`)
	// Markdown emphasis around a label: **Action:**, **Action**:, *Action*:, __Action:__
	reEmph = regexp.MustCompile(`^[*_]{1,3}([^*_\n]{1,40}?)\s*(:?)\s*[*_]{1,3}\s*(:?)`)
)

// Clean returns the answer of a reply: without reasoning (Strip), the
// content of its first fenced block when it has one, without preamble and closing-remark lines, trimmed;
// changed reports that something was removed.
func Clean(s string) (out string, changed bool) {
	orig := strings.TrimSpace(s)
	// Reasoning is never part of the answer (Ask takes it out before any
	// parser runs; this keeps parsers called on raw text safe too).
	s, _, _ = Strip(s)
	s = strings.ReplaceAll(s, "\r\n", "\n")
	lines := strings.Split(s, "\n")
	// A fenced block: keep its inside (the first one).
	if start := indexFence(lines, 0); start >= 0 {
		if end := indexFence(lines, start+1); end > start {
			lines = lines[start+1 : end]
		} else {
			lines = lines[start+1:]
		}
	}
	// Drop fence lines left over (an unclosed or stray fence).
	kept := lines[:0:0]
	for _, l := range lines {
		if !isFence(l) {
			kept = append(kept, l)
		}
	}
	lines = trimBlank(kept)
	// Preamble lines at the top, closing remarks at the bottom, as long as
	// something else remains.
	for len(lines) > 1 && preamble(lines[0]) {
		lines = trimBlank(lines[1:])
	}
	for len(lines) > 1 && reClosing.MatchString(lines[len(lines)-1]) {
		lines = trimBlank(lines[:len(lines)-1])
	}
	out = strings.TrimSpace(strings.Join(lines, "\n"))
	// A reply of several lines wrapped whole in one pair of double quotes
	// (and holding no other): the quotes belong to no line.
	if strings.Contains(out, "\n") {
		out, _ = Unwrap(out)
	}
	return out, out != orig
}

// Unwrap removes one pair of double quotes around the whole of s when s
// holds no other double quote: the reply "\"Thought: go north.\"" is the
// answer Thought: go north. A one-line answer keeps its quotes in Clean so
// that the line parsers (Unquote) see and count them; a parser that reads
// labels out of the whole reply unwraps it first.
func Unwrap(s string) (string, bool) {
	if len(s) > 2 && s[0] == '"' && s[len(s)-1] == '"' && strings.Count(s, "\"") == 2 {
		return strings.TrimSpace(s[1 : len(s)-1]), true
	}
	return s, false
}

func preamble(l string) bool { return reOpener.MatchString(l) || reAnnounce.MatchString(l) }

func indexFence(lines []string, from int) int {
	for i := from; i < len(lines); i++ {
		if isFence(lines[i]) {
			return i
		}
	}
	return -1
}

// isFence reports a fence line (white space of any kind around it).
func isFence(l string) bool { return reFence.MatchString(strings.TrimSpace(l)) }

func trimBlank(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// Unemphasize removes markdown emphasis from the start of a line so that a
// label reads plainly: "**Action:** go" and "**Action**: go" become
// "Action: go"; "> " quoting and list bullets are dropped too.
func Unemphasize(line string) (string, bool) {
	l := strings.TrimSpace(line)
	orig := l
	l = strings.TrimLeft(l, "> ")
	if m := reEmph.FindStringSubmatchIndex(l); m != nil {
		label := l[m[2]:m[3]]
		colon := l[m[4]:m[5]] + l[m[6]:m[7]]
		l = label + colon + " " + strings.TrimSpace(l[m[1]:])
	}
	l = strings.TrimSpace(l)
	return l, l != orig
}

// Label returns the value of a line "label: value" when line starts with one
// of labels (case ignored, emphasis allowed): ("**Action:** go", "action")
// gives "go", true.
func Label(line string, labels ...string) (string, bool) {
	l, _ := Unemphasize(line)
	for _, lab := range labels {
		if len(l) > len(lab) && strings.EqualFold(l[:len(lab)], lab) {
			rest := strings.TrimLeft(l[len(lab):], " \t")
			if strings.HasPrefix(rest, ":") {
				return strings.TrimSpace(rest[1:]), true
			}
		}
	}
	return "", false
}

// Unquote strips quotes, backticks, emphasis and trailing sentence
// punctuation around a one-line answer: `"Go to drawer 1."` -> "Go to drawer 1".
func Unquote(s string) (string, bool) {
	orig := strings.TrimSpace(s)
	out := orig
	for prev := ""; prev != out; {
		prev = out
		out = strings.TrimSpace(out)
		out = strings.Trim(out, "`\"'*_“”‘’")
		out = strings.TrimRight(out, ".!;,")
	}
	return out, out != orig
}

// JSONString returns the first non-empty string field of keys when s (or
// the first {...} inside it) is a JSON object: a model that answers
// {"action": "go to drawer 1"} where a line was asked.
func JSONString(s string, keys ...string) (string, bool) {
	i, j := strings.Index(s, "{"), strings.LastIndex(s, "}")
	if i < 0 || j <= i {
		return "", false
	}
	var obj map[string]any
	if json.Unmarshal([]byte(s[i:j+1]), &obj) != nil {
		return "", false
	}
	for _, k := range keys {
		for name, v := range obj {
			if strings.EqualFold(name, k) {
				if str, ok := v.(string); ok && strings.TrimSpace(str) != "" {
					return strings.TrimSpace(str), true
				}
			}
		}
	}
	return "", false
}

// Bool reads a yes/no answer in any decoration: "True", "**Yes.**",
// "```\nFALSE\n```", "Sure! The answer is: no", "Answer: true".
func Bool(s string) (v, ok, repaired bool) {
	c, changed := Clean(s)
	words := strings.FieldsFunc(strings.ToLower(c), func(r rune) bool {
		return !(r >= 'a' && r <= 'z')
	})
	// The first yes/no word of the answer; a preamble line may remain in a
	// one-line reply ("The answer is: True").
	for i, w := range words {
		switch w {
		case "true", "yes":
			return true, true, changed || i > 0 || !strings.EqualFold(c, w)
		case "false", "no":
			return false, true, changed || i > 0 || !strings.EqualFold(c, w)
		}
		if i >= 8 {
			break
		}
	}
	return false, false, changed
}

// Junk reports whether a line is decoration and never content: empty, a
// fence, a preamble, a closing remark, a lone label, or only punctuation.
// Memories are never made of such lines.
func Junk(line string) bool {
	l := strings.TrimSpace(line)
	if l == "" || isFence(l) || preamble(l) || reClosing.MatchString(l) {
		return true
	}
	letters := 0
	for _, r := range l {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			letters++
		}
	}
	return letters == 0
}

// Clip cuts s to at most n bytes, at the last space when there is one,
// never inside a UTF-8 sequence, and trims it: a bound on what a role
// keeps of a runaway reply.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n], ' ')
	if cut <= 0 {
		cut = n
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
	}
	return strings.TrimSpace(s[:cut])
}

// Short is s cut to n bytes with "..." when longer, for error messages
// that quote a reply.
func Short(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "..."
}

package reply

import (
	"regexp"
	"strings"
)

// Reasoning models put their reasoning in the content when the server has
// no reasoning parser (vLLM, llama.cpp and Ollama's raw mode): inside think
// tags, closed or left open when the reply ran out of tokens, or after an
// opening tag the chat template put in the prompt, so that the content
// holds only the closing tag (DeepSeek-R1 and its distillations, QwQ).
// gpt-oss writes channels (harmony): analysis first, then the final answer.
var (
	// An opening tag: <think>, <thinking>, <reasoning> (any case, with or
	// without attributes), Magistral's [THINK], Kimi's ◁think▷, and
	// <|begin_of_thought|>.
	reThinkOpen = regexp.MustCompile(`(?i)<(?:think|thinking|reasoning)(?:\s[^<>]*)?>|\[THINK\]|◁think▷|<\|begin_of_thought\|>`)
	// A closing tag of any of them (a block opened with one name and closed
	// with another is still closed).
	reThinkClose = regexp.MustCompile(`(?i)</\s*(?:think|thinking|reasoning)\s*>|\[/THINK\]|◁/think▷|<\|end_of_thought\|>`)
	// Harmony: the start of the final channel's message, whose text is the
	// answer ("<|channel|>final<|message|>", also with "<|constrain|>json").
	reFinal = regexp.MustCompile(`(?i)<\|channel\|>\s*final\b[^<]*(?:<\|constrain\|>[^<]*)?<\|message\|>`)
	// Harmony: any channel header; without a final one, all is reasoning.
	reChannel = regexp.MustCompile(`(?i)<\|channel\|>`)
	// Harmony tokens that end a message or start the next one.
	reHarmonyEnd = regexp.MustCompile(`(?i)<\|(?:end|return|call|start|channel)\|>`)
	// "<|start|>assistant" (or a bare "<|start|>") left before a channel.
	reHarmonyStart = regexp.MustCompile(`(?i)<\|start\|>\s*(?:assistant)?\s*$`)
)

// Strip takes the reasoning out of a reply's content: think blocks (closed,
// or left open to the end of the reply), everything before a closing tag
// that has no opening one, and harmony's non-final channels. It returns the
// answer that remains (trimmed), the reasoning taken out (its blocks
// joined by blank lines, trimmed) and whether any was found. The answer
// never holds a think tag or a harmony channel header, so Strip of an
// answer finds nothing.
func Strip(s string) (answer, reasoning string, found bool) {
	var parts []string
	for {
		next, r, ok := stripOnce(s)
		if !ok {
			break
		}
		found = true
		if r = strings.TrimSpace(r); r != "" {
			parts = append(parts, r)
		}
		s = next
	}
	return strings.TrimSpace(s), strings.Join(parts, "\n\n"), found
}

// stripOnce removes one piece of reasoning from s; ok is false when s holds
// none. Every removal shortens s, so Strip ends.
func stripOnce(s string) (out, reasoning string, ok bool) {
	// Harmony: the last final message is the answer, up to the token that
	// ends it; everything before it is reasoning.
	if locs := reFinal.FindAllStringIndex(s, -1); locs != nil {
		last := locs[len(locs)-1]
		answer := s[last[1]:]
		if e := reHarmonyEnd.FindStringIndex(answer); e != nil {
			answer = answer[:e[0]]
		}
		return answer, s[:last[0]], true
	}
	if loc := reChannel.FindStringIndex(s); loc != nil {
		// Channels with no final one: reasoning to the end (cut off).
		before := reHarmonyStart.ReplaceAllString(s[:loc[0]], "")
		return before, s[loc[0]:], true
	}
	open := reThinkOpen.FindStringIndex(s)
	closing := reThinkClose.FindStringIndex(s)
	switch {
	case closing != nil && (open == nil || closing[0] < open[0]):
		// A closing tag with no opening one: the template opened the block
		// in the prompt; all before it is reasoning.
		return s[closing[1]:], s[:closing[0]], true
	case open != nil:
		rest := s[open[1]:]
		if c := reThinkClose.FindStringIndex(rest); c != nil {
			return s[:open[0]] + "\n" + rest[c[1]:], rest[:c[0]], true
		}
		// Left open: the reply ended (or was cut off) while reasoning.
		return s[:open[0]], rest, true
	}
	return s, "", false
}

// HasReasoningTags reports whether s holds a think tag or a harmony channel
// header: text that is (or borders) reasoning, never an answer.
func HasReasoningTags(s string) bool {
	return reThinkOpen.MatchString(s) || reThinkClose.MatchString(s) || reChannel.MatchString(s)
}

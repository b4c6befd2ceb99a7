// Package ariadne holds what the Ariadne agent's decision modules (seed 000
// Sec. 3) share whatever memory they are given: the reply formats of the
// planning and ReAct decision calls, their JSON schemas, and the asking of
// them (asked again on an unusable reply, then the plan so far or no
// action). AriGraph (package arigraph) and the memory-stream baseline
// (package memstream, Ariadne with the graph replaced by the stream,
// Sec. 4.2) both ask and read their model's replies with it.
package ariadne

import (
	"encoding/json"
	"regexp"
	"strings"

	replyfmt "github.com/samem/trainer/internal/reply"
)

var reAction = regexp.MustCompile(`(?is)"?action_to_take"?\s*:\s*"((?:[^"\\]|\\.)*)"`)
var reReason = regexp.MustCompile(`(?is)"?reason_for_action"?\s*:\s*"((?:[^"\\]|\\.)*)"`)

// ParseDecision reads the ReAct reply {"reason_for_action": ..., "action_to_take": ...}
// tolerantly (code fences, missing commas, text around it). ok is false when
// no action can be found.
func ParseDecision(reply string) (reason, action string, ok bool) {
	if m := reAction.FindStringSubmatch(reply); m != nil {
		action = unescape(m[1])
	}
	if m := reReason.FindStringSubmatch(reply); m != nil {
		reason = unescape(m[1])
	}
	if action == "" {
		// Not the asked JSON: an "Action: ..." line or a one-line answer.
		c, _ := replyfmt.Clean(reply)
		for _, l := range strings.Split(c, "\n") {
			if v, ok := replyfmt.Label(l, "action_to_take", "action to take", "action"); ok {
				action = v
			} else if v, ok := replyfmt.Label(l, "reason_for_action", "reason"); ok && reason == "" {
				reason = v
			}
		}
		if action == "" && !strings.Contains(c, "\n") && !strings.ContainsAny(c, "{}") && len(c) <= 80 {
			action = c
		}
		action, _ = replyfmt.Unquote(action)
	}
	action = strings.TrimSpace(action)
	return reason, action, action != ""
}

func unescape(s string) string {
	var out string
	if err := json.Unmarshal([]byte(`"`+s+`"`), &out); err == nil {
		return out
	}
	return s
}

// ParsePlan extracts the JSON object of a planning reply; when there is none
// the trimmed reply is the plan (the planner's text is kept either way, since
// working memory carries it as text).
func ParsePlan(reply string) string {
	i, j := strings.Index(reply, "{"), strings.LastIndex(reply, "}")
	if i >= 0 && j > i {
		return strings.TrimSpace(reply[i : j+1])
	}
	return strings.TrimSpace(reply)
}

// AsAsked reports whether a decision reply holds the asked form (an
// "action_to_take" field) rather than one ParseDecision repaired.
func AsAsked(reply string) bool { return reAction.MatchString(reply) }

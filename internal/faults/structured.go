package faults

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/samem/trainer/internal/jsonschema"
	"github.com/samem/trainer/llm/llmtest"
)

// Structured answers as a server that enforces structured outputs does
// (OpenAI's strict json_schema, vLLM's guided decoding): a chat without a
// response_format of type json_schema, strict, is refused with a 400, and
// every answer is JSON of the request's schema. The content is AllReplies'
// answer to the prompt, written in the fields of the role's schema (told
// by its name); an answer that does not fit the schema, or a schema this
// fixture does not know, is a 400 naming it, so that a test fails loudly.
func Structured() llmtest.Handler {
	all := AllReplies()
	return func(c llmtest.Call) llmtest.Reply {
		if c.Chat == nil {
			return llmtest.Reply{}
		}
		name, schema, strict, ok := c.Chat.JSONSchema()
		if !ok || !strict {
			return refuse(fmt.Sprintf("faults: this server answers json_schema (strict) requests only; got response_format %.200s for prompt %.80q", c.Chat.ResponseFormat, c.Chat.System()))
		}
		r := all(c)
		if r.Fault != (llmtest.Fault{}) {
			return r
		}
		v, err := structure(name, r.Text, c.Chat.Prompt())
		if err != nil {
			return refuse(fmt.Sprintf("faults: schema %s: %v (answer %.120q)", name, err, r.Text))
		}
		b, _ := json.Marshal(v)
		if err := jsonschema.Validate(schema, b); err != nil {
			return refuse(fmt.Sprintf("faults: schema %s: the answer %s does not fit: %v", name, b, err))
		}
		return llmtest.Reply{Text: string(b)}
	}
}

func refuse(msg string) llmtest.Reply {
	return llmtest.Reply{Fault: llmtest.Fault{Status: http.StatusBadRequest, Message: msg}}
}

var (
	reNumbered = regexp.MustCompile(`^\s*\d+[.)]\s*`)
	reBecause  = regexp.MustCompile(`\s*\(because of ([^)]*)\)\s*$`)
	reInts     = regexp.MustCompile(`\d+`)
)

// label is the text after "label:" on the first line that has it, or the
// whole text.
func label(text, name string) string {
	for _, l := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), name+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return strings.TrimSpace(text)
}

func lines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(reNumbered.ReplaceAllString(l, "")); l != "" {
			out = append(out, l)
		}
	}
	return out
}

func ints(s string) []int {
	out := []int{}
	for _, x := range reInts.FindAllString(s, -1) {
		if v, err := strconv.Atoi(x); err == nil {
			out = append(out, v)
		}
	}
	return out
}

type triplet struct {
	Subject  string `json:"subject"`
	Relation string `json:"relation"`
	Object   string `json:"object"`
}

// structure writes AllReplies' text answer in the fields of schema name.
func structure(name, text, prompt string) (any, error) {
	switch name {
	case "summary":
		return map[string]any{"summary": label(text, "Summary")}, nil
	case "thought":
		return map[string]any{"thought": label(text, "Thought")}, nil
	case "action":
		return map[string]any{"action": label(text, "Action")}, nil
	case "thought_action":
		return map[string]any{"thought": label(text, "Thought"), "action": label(text, "Action")}, nil
	case "check":
		return map[string]any{"is_valid": strings.Contains(text, "True")}, nil
	case "reflection":
		return map[string]any{"reflection": label(text, "Reflection")}, nil
	case "clin_controller":
		used, rest, _ := strings.Cut(text, "$$$")
		rationale, action, ok := strings.Cut(rest, "###")
		if !ok {
			return nil, fmt.Errorf("no ### in the controller's answer")
		}
		return map[string]any{"used_learning_ids": ints(used), "rationale": strings.TrimSpace(rationale), "action": strings.TrimSpace(action)}, nil
	case "clin_learnings":
		return map[string]any{"learnings": lines(text)}, nil
	case "clin_advice":
		return map[string]any{"advice": lines(text)}, nil
	case "clin_select":
		return map[string]any{"learning_ids": ints(text)}, nil
	case "arigraph_extract":
		ts := []triplet{}
		for _, item := range strings.Split(text, ";") {
			p := strings.Split(item, ",")
			if len(p) == 3 {
				ts = append(ts, triplet{strings.TrimSpace(p[0]), strings.TrimSpace(p[1]), strings.TrimSpace(p[2])})
			}
		}
		return map[string]any{"triplets": ts}, nil
	case "arigraph_replace":
		if strings.TrimSpace(text) != "[]" {
			return nil, fmt.Errorf("only [] is written as replacements here")
		}
		return map[string]any{"replacements": []any{}}, nil
	case "arigraph_explore":
		return map[string]any{"needs_exploration": strings.TrimSpace(text) == "True"}, nil
	case "plan":
		return map[string]any{
			"main_goal":    "complete the task",
			"plan_steps":   []any{map[string]any{"sub_goal": "find the target object", "reason": "not found yet"}},
			"your_emotion": map[string]any{"your_current_emotion": "calm", "reason_behind_emotion": "the task is under way"},
		}, nil
	case "decide", "kgplan_update":
		var v map[string]any
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			return nil, err
		}
		return v, nil
	case "memstream_importance":
		n := ints(text)
		if len(n) == 0 {
			return nil, fmt.Errorf("no rating")
		}
		return map[string]any{"rating": n[0]}, nil
	case "memstream_questions":
		return map[string]any{"questions": lines(text)}, nil
	case "memstream_insights":
		var out []any
		for _, l := range lines(text) {
			ev := []int{}
			if m := reBecause.FindStringSubmatchIndex(l); m != nil {
				ev = ints(l[m[2]:m[3]])
				l = l[:m[0]]
			}
			out = append(out, map[string]any{"insight": l, "because_of": ev})
		}
		return map[string]any{"insights": out}, nil
	case "kgplan_goal":
		return map[string]any{"goal": strings.TrimSpace(text)}, nil
	case "kgplan_entities":
		var v []string
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			return nil, err
		}
		return map[string]any{"entities": v}, nil
	}
	return nil, fmt.Errorf("no role of this fixture has that schema (prompt %.80q)", prompt)
}

package faults

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"github.com/samem/trainer/llm/llmtest"
)

// AllReplies answers the prompts of every method's model roles on the
// household world the way a cooperative model would, so that `-method all`
// can be trained and evaluated through the openai backend against a local
// server. SAMem's roles and the baselines' actor (a "Thought:"/"Action:"
// prompt) are answered as SAMemReplies does; the others, recognised by a
// phrase of their templates (the golden files under each package's
// testdata show the prompts):
//
//   - CLIN: the controller ("I used learning id(s):", an action copied from
//     "Possible actions:"), the memory generator (adapt, meta and GEN-TASK,
//     a numbered list of causal learnings; the advice ablation's, a
//     numbered list of free-form advice) and the selection (numbers);
//   - AriGraph and the memory stream: decide (JSON with "action_to_take"
//     copied from "Possible actions now:"), plan (JSON with "plan_steps"),
//     explore (True or False), extraction (triplets), outdated triplets
//     ([]), importance (9, so that a few episodes reach reflection), questions and insights;
//   - L3M+P: the graph update (JSON REMOVE/ADD), the goal (a :goal block
//     built from the task's types) and the entities (the listed ones);
//   - reflexion's reflection and the summary baseline's summary.
//
// Any other chat gets a 400 naming the prompt; embeddings get llmtest's
// deterministic vectors.
func AllReplies() llmtest.Handler {
	samem := SAMemReplies()
	return func(c llmtest.Call) llmtest.Reply {
		if c.Chat == nil {
			return llmtest.Reply{}
		}
		sys, p := c.Chat.System(), c.Chat.Prompt()
		text := func(s string) llmtest.Reply { return llmtest.Reply{Text: s} }
		// Most specific first: the explore and decide prompts quote the
		// plan, a JSON object like the plan role's own reply.
		switch {
		case strings.Contains(p, "Answer with one word, True or False"):
			return text("True")
		case strings.Contains(p, "I used learning id(s):"):
			return text("I used learning id(s): 1\n$$$ the next step is to look where the object usually is\n### " + pick(dashList(p, "Possible actions:"), p))
		case strings.Contains(p, "Summary of advice as a numbered list:"):
			return text("1. Open the closed receptacles one by one before searching elsewhere.\n2. Avoid checking the inventory over and over; it wastes steps.")
		case strings.Contains(p, "Summary of learning as a numbered list:"):
			return text("1. opening a closed receptacle SHOULD BE NECESSARY to finding the target object.\n2. checking the inventory MAY NOT CONTRIBUTE to completing the task.")
		case strings.Contains(p, "List the numbers of the learnings relevant"):
			return text("1, 2")
		case strings.Contains(p, `"action_to_take"`):
			b, _ := json.Marshal(map[string]string{"reason_for_action": "it serves the first sub-goal",
				"action_to_take": pick(jsonList(p, "Possible actions now:"), p)})
			return text(string(b))
		case strings.Contains(p, "You are the planning module"):
			return text(`{"main_goal": "complete the task", "plan_steps": [{"sub_goal_1": "find the target object", "reason": "not found yet"}], "your_emotion": {"your_current_emotion": "calm", "reason_behind_emotion": "the task is under way"}}`)
		case strings.Contains(p, "Extracted triplets:"):
			return text("room, has, " + strings.ToLower(firstWords(after(p, "Observation:"), 2)) + "; agent, pursues, task")
		case strings.Contains(p, "Replacing:"):
			return text("[]")
		case strings.Contains(p, "Rating:") && strings.Contains(p, "scale from 1 to 10"):
			return text("9") // 17 memories pass the reflection threshold of 150
		case strings.Contains(p, "high-level questions"):
			return text("Where is the target object?\nWhich receptacles were opened?\nWhat does the task need next?")
		case strings.Contains(p, "high-level insights"):
			return text("The agent is searching the receptacles one by one (because of 1)\nThe target object is not found yet (because of 1)")
		case strings.Contains(p, `{"REMOVE":`):
			return text(`{"REMOVE": [], "ADD": []}`)
		case strings.Contains(p, "Provide only the (:goal ...) block"):
			return text(goal(p))
		case strings.Contains(p, "Answer with a JSON list of entity names"):
			b, _ := json.Marshal(strings.Split(after(p, "Entities:"), ", "))
			return text(string(b))
		case strings.Contains(sys, "You review an attempt"):
			return text("Reflection: The target object was never found. Next time open the closed receptacles one by one before anything else.")
		case strings.Contains(sys, "into a reusable script"):
			// MemRL's script of a won episode
			return text("1. Search the receptacles not checked yet, opening the closed ones.\n2. Take the target object.\n3. Carry it to the final destination and put it there.")
		case strings.Contains(sys, "You review a failed attempt"):
			// MemRL's reflection on a failed episode
			return text("Reflection: The target object was never found. Next time open the closed receptacles one by one before anything else.")
		case strings.Contains(sys, "running summary"):
			return text("Summary: The agent is at " + firstWords(after(c.Chat.LastUser(), "Observation:"), 6) + ".")
		}
		r := samem(c)
		if r.Fault.Status == http.StatusBadRequest {
			r.Fault.Message = fmt.Sprintf("faults: no role matches prompt %.120q", p)
		}
		return r
	}
}

// after is the rest of the line after the last marker in s (or the next
// line when the marker ends its line).
func after(s, marker string) string {
	i := strings.LastIndex(s, marker)
	if i < 0 {
		return ""
	}
	s = strings.TrimLeft(s[i+len(marker):], " ")
	s = strings.TrimPrefix(s, "\n")
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(line)
}

// dashList is the "- item" list after marker.
func dashList(p, marker string) []string {
	i := strings.LastIndex(p, marker)
	if i < 0 {
		return nil
	}
	var out []string
	for _, l := range strings.Split(p[i+len(marker):], "\n") {
		l = strings.TrimSpace(l)
		if a, ok := strings.CutPrefix(l, "- "); ok {
			out = append(out, a)
		} else if l != "" || len(out) > 0 {
			if len(out) > 0 {
				break
			}
		}
	}
	return out
}

// jsonList is the JSON list of strings on the line after marker.
func jsonList(p, marker string) []string {
	var out []string
	_ = json.Unmarshal([]byte(after(p, marker)), &out)
	return out
}

var objectDecl = regexp.MustCompile(`([a-z]+)_\d+ - ([a-z]+)`)

// goal is a :goal block for the task of an L3M+P goal prompt: some object
// of the task's portable type in some receptacle of its destination's
// type, both types taken from the known objects the task names.
func goal(p string) string {
	task := strings.ToLower(after(p, "Task:"))
	objs := after(p, "Objects known now:")
	var item, recep string
	first, last := len(task), -1
	for _, m := range objectDecl.FindAllStringSubmatch(objs, -1) {
		i := strings.Index(task, m[2])
		if i < 0 {
			continue
		}
		if i < first {
			item, first = m[2], i
		}
		if i > last {
			recep, last = m[2], i
		}
	}
	if item == "" || recep == "" || item == recep {
		return "(:goal (handempty you))"
	}
	return fmt.Sprintf("(:goal (exists (?o - %s ?r - %s) (in ?o ?r)))", item, recep)
}

package baseline

import (
	"fmt"
	"strings"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/llm/llmtest"
)

// ariadneServer answers the Ariadne planning and decision prompts of a
// baseline: the plan names the step it has reached, the decision follows
// the expert's plan at the step counted from the prompt's memory. Other
// prompts (the summary's update) go to other.
func ariadneServer(t *testing.T, plan []string, step func(prompt string) int, other func(llmtest.Call) llmtest.Reply) func(llmtest.Call) llmtest.Reply {
	return func(call llmtest.Call) llmtest.Reply {
		if call.Chat == nil {
			return llmtest.Reply{}
		}
		p := call.Chat.Messages[0].Content
		switch {
		case strings.HasPrefix(p, "INSTRUCTION:\nYou are the planning module"):
			return llmtest.Reply{Text: fmt.Sprintf(`{"main_goal": "the task", "plan_steps": [{"sub_goal_1": "step %d", "reason": "counted"}]}`, step(p))}
		case strings.HasPrefix(p, "INSTRUCTION:\nYou are the decision module"):
			k := step(p)
			if !strings.Contains(p, fmt.Sprintf("step %d", k)) {
				return llmtest.Reply{Text: `{"reason_for_action": "no plan", "action_to_take": "look"}`}
			}
			if k >= len(plan) {
				return llmtest.Reply{Text: `{"reason_for_action": "done", "action_to_take": "look"}`}
			}
			return llmtest.Reply{Text: fmt.Sprintf(`{"reason_for_action": "step %d", "action_to_take": %q}`, k, plan[k])}
		}
		if other != nil {
			return other(call)
		}
		return llmtest.Reply{Text: "unexpected prompt"}
	}
}

// TestFullHistoryAriadne: by default the full-history baseline is Ariadne
// with the whole episode as its memory (seed 000 Sec. 4.2): a plan call and
// a decision call per step, the plan carried into the decision, every
// earlier action in the prompt. The server counts the actions in the
// prompt, so the expert's plan is followed only if the whole history is
// there.
func TestFullHistoryAriadne(t *testing.T) {
	s := smallSuite(t, 0)
	task := taskOf(t, s, envbridge.SplitValidUnseen, "pick_heat_then_place_in_recep")
	plan, err := s.Expert(task.ID)
	if err != nil {
		t.Fatal(err)
	}
	// The history's actions, and the one that led to the observation now.
	steps := func(p string) int {
		n := strings.Count(p, "\nAction: ")
		if strings.Contains(p, "Observation now, after ") {
			n++
		}
		return n
	}
	srv, c := client(t, ariadneServer(t, plan, steps, nil))
	m := mustFull(t, FullHistoryConfig{}, Deps{Chat: c, Embed: c})
	ep := runOne(t, m, s, task, agent.Eval)
	if !ep.Outcome.Won || ep.Outcome.Steps != len(plan) {
		t.Fatalf("outcome %+v, want won in %d steps", ep.Outcome, len(plan))
	}
	if got := srv.ChatRequests(); got != 2*len(plan) {
		t.Errorf("%d chat requests, want %d (a plan and a decision per step)", got, 2*len(plan))
	}
	for _, call := range srv.Calls() {
		if call.Chat != nil && isActor(call) {
			t.Fatal("the one-call actor was asked")
		}
	}
	if got := ep.Transitions[1].Decision.Thought; got != "step 1" {
		t.Errorf("second decision's reason %q", got)
	}
}

// TestSummaryAriadne: by default the summary baseline is Ariadne with the
// running summary as its memory; the server keeps its step count in the
// summary, so the plan is followed only if each summary reaches the
// planning and decision prompts, and the history never does.
func TestSummaryAriadne(t *testing.T) {
	s := smallSuite(t, 0)
	task := taskOf(t, s, envbridge.SplitValidUnseen, "pick_and_place_simple")
	plan, err := s.Expert(task.ID)
	if err != nil {
		t.Fatal(err)
	}
	srv, c := client(t, ariadneServer(t, plan, func(p string) int {
		if strings.Contains(p, "The episode so far") {
			return -1 // the history leaked
		}
		return count(p)
	}, func(call llmtest.Call) llmtest.Reply {
		if strings.HasPrefix(call.Chat.System(), "You keep a running summary") {
			return llmtest.Reply{Text: "Summary: " + fmt.Sprint(count(call.Chat.LastUser())+1) + " actions taken."}
		}
		return llmtest.Reply{Text: "unexpected prompt"}
	}))
	m, err := NewSummary(SummaryConfig{}, Deps{Chat: c, Embed: c})
	if err != nil {
		t.Fatal(err)
	}
	ep := runOne(t, m, s, task, agent.Eval)
	if !ep.Outcome.Won || ep.Outcome.Steps != len(plan) {
		t.Fatalf("outcome %+v, want won in %d steps", ep.Outcome, len(plan))
	}
	if got := srv.ChatRequests(); got != 3*len(plan) {
		t.Errorf("%d chat requests, want %d (an update, a plan and a decision per step)", got, 3*len(plan))
	}
}

// TestFullHistoryKeepsEverything: the Ariadne full history carries every
// step of a long game (seed 000's 150-step games), where the former bound
// showed 50.
func TestFullHistoryKeepsEverything(t *testing.T) {
	var h []Step
	for i := range 150 {
		h = append(h, Step{Action: fmt.Sprintf("act %d", i), Text: fmt.Sprintf("obs %d", i)})
	}
	m := mustFull(t, FullHistoryConfig{}, Deps{Offline: Offline{History: stubHistory{}}})
	kept, omitted := window(h, m.cfg.MaxHistory-1)
	p, err := render("ariadne_decide.tmpl", ariadneView{Goal: "g", History: kept, Omitted: omitted, Observation: "now"}.data())
	if err != nil {
		t.Fatal(err)
	}
	if omitted != 0 || !strings.Contains(p, "obs 0\n") || !strings.Contains(p, "Action: act 149") {
		t.Errorf("%d steps omitted; the prompt lacks the first or the last step", omitted)
	}
}

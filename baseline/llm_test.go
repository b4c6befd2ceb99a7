package baseline

import (
	"context"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/llm/llmtest"
	"github.com/samem/trainer/llm/openai"
	"github.com/samem/trainer/runner"
)

// client is the real OpenAI-protocol client pointed at a local test server.
func client(t *testing.T, h llmtest.Handler) (*llmtest.Server, *openai.Client) {
	t.Helper()
	srv := llmtest.NewServer(t, h)
	c, err := openai.New(openai.Config{
		ChatModel: "test-chat", ChatBaseURLs: []string{srv.URL},
		EmbedModel: "test-embed", EmbedDim: llmtest.DefaultEmbedDim, Timeout: 10 * time.Second, Retries: -1,
	})
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

func isActor(c llmtest.Call) bool {
	return c.Chat != nil && strings.HasPrefix(c.Chat.System(), "You act in a household environment")
}

func runOne(t *testing.T, m agent.Method, s envbridge.Suite, task envbridge.Task, mode agent.Mode) runner.Episode {
	t.Helper()
	ctx := context.Background()
	env, err := s.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	ep, err := runner.Run(ctx, env, m, agent.Start{Task: task, Mode: mode, Style: s.Style(), Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		t.Fatal(err)
	}
	return ep
}

// TestFullHistoryLLM plays the expert's plan through the full-history
// baseline's one-call actor (AgentActor):
// the server answers each step from the number of actions in the prompt's
// history, so the episode is won only if the prompt carries the whole
// history; the first answer is not admissible and must be retried with
// feedback.
func TestFullHistoryLLM(t *testing.T) {
	s := smallSuite(t, 0)
	task := taskOf(t, s, envbridge.SplitValidUnseen, "pick_heat_then_place_in_recep")
	plan, err := s.Expert(task.ID)
	if err != nil {
		t.Fatal(err)
	}
	srv, c := client(t, func(call llmtest.Call) llmtest.Reply {
		if call.Chat == nil {
			return llmtest.Reply{} // deterministic embeddings
		}
		if !isActor(call) {
			return llmtest.Reply{Text: "unexpected prompt"}
		}
		user := call.Chat.Messages[1].Content
		k := strings.Count(user, "\n> ")
		if k == 0 && !strings.Contains(call.Chat.LastUser(), "is not one of the admissible actions") {
			return llmtest.Reply{Text: "Thought: I should warm it.\nAction: warm the thing up"}
		}
		if k >= len(plan) {
			return llmtest.Reply{Text: "Thought: done\nAction: look"}
		}
		return llmtest.Reply{Text: "Thought: step " + strconv.Itoa(k) + "\nAction: " + plan[k]}
	})
	m := mustFull(t, FullHistoryConfig{Agent: AgentActor}, Deps{Chat: c, Embed: c})
	ep := runOne(t, m, s, task, agent.Train)
	if !ep.Outcome.Won || ep.Outcome.Steps != len(plan) {
		t.Fatalf("outcome %+v, want won in %d steps", ep.Outcome, len(plan))
	}
	if got := srv.ChatRequests(); got != len(plan)+1 {
		t.Errorf("%d chat requests, want %d (one retry)", got, len(plan)+1)
	}
	calls := srv.Calls()
	last := calls[len(calls)-1]
	for _, a := range plan[:len(plan)-1] {
		if !strings.Contains(last.Chat.Prompt(), "> "+a+"\n") {
			t.Errorf("last prompt lacks the earlier action %q", a)
		}
	}
	if ep.Transitions[0].Decision.Thought != "step 0" {
		t.Errorf("first thought %q", ep.Transitions[0].Decision.Thought)
	}
}

var reCount = regexp.MustCompile(`(\d+) actions taken`)

func count(s string) int {
	m := reCount.FindStringSubmatch(s)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// TestSummaryLLM: the summary update sees the previous summary and the
// actor sees only the updated summary; the server keeps its step count in
// the summary, so the plan is followed only if each summary is fed back.
func TestSummaryLLM(t *testing.T) {
	s := smallSuite(t, 0)
	task := taskOf(t, s, envbridge.SplitValidUnseen, "pick_and_place_simple")
	plan, err := s.Expert(task.ID)
	if err != nil {
		t.Fatal(err)
	}
	srv, c := client(t, func(call llmtest.Call) llmtest.Reply {
		switch {
		case call.Chat == nil:
			return llmtest.Reply{}
		case strings.HasPrefix(call.Chat.System(), "You keep a running summary"):
			n := count(call.Chat.LastUser()) + 1 // -1 + 1 at the start
			return llmtest.Reply{Text: "Summary: " + strconv.Itoa(n) + " actions taken."}
		case isActor(call):
			u := call.Chat.LastUser()
			if strings.Contains(u, "The episode so far") {
				return llmtest.Reply{Text: "Thought: history leaked\nAction: look"}
			}
			n := count(u)
			if n < 0 || n >= len(plan) {
				return llmtest.Reply{Text: "Thought: lost\nAction: look"}
			}
			return llmtest.Reply{Text: "Thought: follow\nAction: " + plan[n]}
		}
		return llmtest.Reply{Text: "unexpected prompt"}
	})
	m, err := NewSummary(SummaryConfig{Agent: AgentActor}, Deps{Chat: c, Embed: c})
	if err != nil {
		t.Fatal(err)
	}
	ep := runOne(t, m, s, task, agent.Eval)
	if !ep.Outcome.Won || ep.Outcome.Steps != len(plan) {
		t.Fatalf("outcome %+v, want won in %d steps", ep.Outcome, len(plan))
	}
	if got := srv.ChatRequests(); got != 2*len(plan) {
		t.Errorf("%d chat requests, want %d (an update and an action per step)", got, 2*len(plan))
	}
}

// TestReflexionLLM: a failed training trial is reflected on through the
// model, the parsed reflection is kept and shown to the actor of the next
// episode; evaluation trials are not reflected on.
func TestReflexionLLM(t *testing.T) {
	s := smallSuite(t, 3)
	task := taskOf(t, s, envbridge.SplitTrain, "pick_and_place_simple")
	const lesson = "I only looked around. Next time search the receptacles first."
	srv, c := client(t, func(call llmtest.Call) llmtest.Reply {
		switch {
		case call.Chat == nil:
			return llmtest.Reply{}
		case strings.HasPrefix(call.Chat.System(), "You review an attempt"):
			return llmtest.Reply{Text: "**Reflection:** " + lesson}
		case isActor(call):
			return llmtest.Reply{Text: "Thought: let me see\nAction: look"}
		}
		return llmtest.Reply{Text: "unexpected prompt"}
	})
	m := mustReflexion(t, ReflexionConfig{}, Deps{Chat: c, Embed: c})
	if ep := runOne(t, m, s, task, agent.Train); ep.Outcome.Won {
		t.Fatal("looking around won the task")
	}
	got := m.Reflections()
	if len(got) != 1 || got[0].Text != lesson || got[0].Task != task.ID {
		t.Fatalf("reflections %+v, want the parsed lesson for %s", got, task.ID)
	}
	var reflectPrompt string
	for _, call := range srv.Calls() {
		if call.Chat != nil && strings.HasPrefix(call.Chat.System(), "You review an attempt") {
			reflectPrompt = call.Chat.LastUser()
		}
	}
	if !strings.Contains(reflectPrompt, "the step limit was reached after 3 steps") || strings.Count(reflectPrompt, "\n> look") != 3 {
		t.Errorf("reflection prompt lacks the outcome or the trajectory:\n%s", reflectPrompt)
	}
	before := srv.ChatRequests()
	runOne(t, m, s, task, agent.Eval)
	calls := srv.Calls()
	for _, call := range calls[before:] {
		if call.Chat == nil {
			continue
		}
		if !isActor(call) {
			t.Errorf("evaluation made a non-actor call: %.60q", call.Chat.System())
		} else if !strings.Contains(call.Chat.LastUser(), "1. "+lesson) {
			t.Errorf("actor prompt lacks the reflection:\n%s", call.Chat.LastUser())
		}
	}
	if len(m.Reflections()) != 1 {
		t.Errorf("evaluation added reflections: %+v", m.Reflections())
	}
}

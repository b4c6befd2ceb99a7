package memstream

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/llmtest"
	"github.com/samem/trainer/llm/openai"
	"github.com/samem/trainer/runner"
)

// Phrases that tell the roles' prompts apart (one from each template).
const (
	markImportance = "Rate how significant the memory below is"
	markQuestions  = "most important high-level questions"
	markInsights   = "Infer 5 high-level insights"
	markPlan       = "You are the planning module"
	markDecide     = "You are the decision module"
)

// householdModel stands in for a language model behind the OpenAI
// protocol: it answers each role's prompt in the form the role parses, and
// records what it decided so the test can follow its answers through the
// agent. The planner numbers its plans; the decider checks that it sees the
// latest plan and picks an admissible action by a hash of the prompt.
type householdModel struct {
	mu        sync.Mutex
	plans     int
	decisions []string // the admissible action chosen by each decide call
	problems  []string // prompts that lacked what they should carry
}

func (h *householdModel) reply(c llmtest.Call) llmtest.Reply {
	if c.Chat == nil {
		return llmtest.Reply{} // embeddings: the server's deterministic vectors
	}
	p := c.Chat.Prompt()
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case strings.Contains(p, markImportance):
		return llmtest.Reply{Text: "Rating: 9"}
	case strings.Contains(p, markQuestions):
		return llmtest.Reply{Text: "1. Where is the target object?\n2. Which receptacles have been opened?"}
	case strings.Contains(p, markInsights):
		return llmtest.Reply{Text: "- The target object was seen in a receptacle (because of 1, 2)\n- Opened receptacles show what they hold (because of 1)"}
	case strings.Contains(p, markPlan):
		h.plans++
		return llmtest.Reply{Text: fmt.Sprintf(`{"main_goal": "do the task", "plan_steps": [{"sub_goal_1": "find the target object", "reason": "plan-%03d"}]}`, h.plans)}
	case strings.Contains(p, markDecide):
		if want := fmt.Sprintf("plan-%03d", h.plans); !strings.Contains(p, "5. Plan: ") || !strings.Contains(p, want) {
			h.problems = append(h.problems, "decide prompt without the latest plan "+want)
		}
		var adm []string
		if _, list, ok := strings.Cut(p, "Possible actions now: "); ok {
			if err := json.Unmarshal([]byte(strings.TrimSpace(list)), &adm); err != nil {
				h.problems = append(h.problems, "unreadable action list: "+err.Error())
			}
		}
		act := "look"
		if len(adm) > 0 {
			act = adm[int(hash(p)%uint32(len(adm)))]
		}
		h.decisions = append(h.decisions, act)
		n := len(h.decisions)
		said := act
		if n == 1 {
			// The first answer is mis-cased and padded: the agent must map it
			// onto the admissible spelling.
			said = "  " + strings.ToUpper(act) + " "
		}
		b, _ := json.Marshal(map[string]string{"reason_for_action": fmt.Sprintf("decision-%03d", n), "action_to_take": said})
		return llmtest.Reply{Text: "```json\n" + string(b) + "\n```"}
	}
	return llmtest.Reply{Fault: llmtest.Fault{Status: http.StatusBadRequest, Message: "no role matches the prompt"}}
}

func hash(s string) uint32 {
	var h uint32 = 2166136261
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * 16777619
	}
	return h
}

// TestLLMPathOverServer runs a training episode and an evaluation episode
// of the household world through the runner, with every model call (the
// importance rating, reflection questions and insights, the Ariadne plan
// and decision, the embeddings) going through llm/openai to a local server
// that speaks the OpenAI protocol. It follows the server's answers into the
// stream and the actions taken.
func TestLLMPathOverServer(t *testing.T) {
	ctx := context.Background()
	model := &householdModel{}
	srv := llmtest.NewServer(t, model.reply)
	meter := llm.NewMeter(nil)
	client, err := openai.New(openai.Config{
		ChatBaseURLs: []string{srv.URL},
		ChatModel:    "test-chat",
		EmbedModel:   "test-embed",
		EmbedDim:     llmtest.DefaultEmbedDim,
		Timeout:      10 * time.Second,
		Retries:      -1, // a prompt no role matches fails at once
		Meter:        meter,
	})
	if err != nil {
		t.Fatal(err)
	}
	// Ratings of 9 pass a threshold of 20 at the third observation, so the
	// training episode reflects; Carry keeps the stream to look at.
	m, err := New(Config{Threshold: 20, Carry: true}, Deps{Chat: client, Embed: client})
	if err != nil {
		t.Fatal(err)
	}
	suite, err := household.New(household.Config{Seed: 1, Train: 6, ValidSeen: 6, ValidUnseen: 6, MaxSteps: 6})
	if err != nil {
		t.Fatal(err)
	}
	env, err := suite.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	train, _ := suite.Tasks(envbridge.SplitTrain)
	eval, _ := suite.Tasks(envbridge.SplitValidUnseen)

	var eps []runner.Episode
	for i, st := range []agent.Start{
		{Task: train[0], Mode: agent.Train},
		{Task: eval[0], Mode: agent.Eval},
	} {
		st.Style, st.Rand = suite.Style(), rand.New(rand.NewPCG(5, uint64(i)))
		before := m.Size()["memories"]
		ep, err := runner.Run(ctx, env, m, st)
		if err != nil {
			t.Fatalf("%s episode on %s: %v", st.Mode, st.Task.ID, err)
		}
		o := ep.Outcome
		if o.Err != "" || o.Steps == 0 || !(o.Won || o.Lost || o.Truncated) {
			t.Errorf("%s episode did not complete: %+v", st.Mode, o)
		}
		after := m.Size()["memories"]
		switch {
		case st.Mode == agent.Train && after <= before:
			t.Errorf("training added no memories (%d -> %d)", before, after)
		case st.Mode == agent.Eval && after != before:
			t.Errorf("evaluation changed the shared stream (%d -> %d memories)", before, after)
		}
		eps = append(eps, ep)
	}

	// Every role's prompt reached the server, under its purpose.
	count := map[string]int{}
	var importance, questions []string
	for _, c := range srv.Calls() {
		if c.Chat == nil {
			continue
		}
		p := c.Chat.Prompt()
		for _, mark := range []string{markImportance, markQuestions, markInsights, markPlan, markDecide} {
			if strings.Contains(p, mark) {
				count[mark]++
			}
		}
		if strings.Contains(p, markImportance) {
			importance = append(importance, p)
		}
		if strings.Contains(p, markPlan) || strings.Contains(p, markDecide) {
			// Seed 000 Sec. 4.2: the RAG baseline's working memory is recent
			// history and retrieved observations, no graph world model.
			for _, graph := range []string{"knowledge graph", "Unexplored exits", "not yet explored:", "Facts from"} {
				if strings.Contains(p, graph) {
					t.Errorf("memstream prompt carries graph content %q:\n%s", graph, p)
				}
			}
		}
		if strings.Contains(p, markQuestions) {
			questions = append(questions, p)
		}
	}
	steps := eps[0].Outcome.Steps + eps[1].Outcome.Steps
	if count[markPlan] != steps || count[markDecide] != steps {
		t.Errorf("server saw %d plan and %d decide prompts for %d steps", count[markPlan], count[markDecide], steps)
	}
	if count[markImportance] < steps || count[markQuestions] == 0 || count[markInsights] == 0 {
		t.Errorf("server saw importance %d (want >= %d steps), questions %d, insights %d prompts",
			count[markImportance], steps, count[markQuestions], count[markInsights])
	}
	if srv.EmbedRequests() == 0 {
		t.Error("no embedding request reached the server")
	}
	rep := meter.Report()
	for _, purpose := range []string{PurposeImportance, PurposeQuestions, PurposeInsights, PurposePlan, PurposeDecide, llm.EmbedPurpose} {
		if s := rep.ByPurpose[purpose]; s.Calls == 0 || s.Errors != 0 {
			t.Errorf("usage of %s = %+v, want calls and no errors", purpose, s)
		}
	}
	if len(importance) == 0 || len(questions) == 0 {
		t.FailNow()
	}
	if !strings.Contains(importance[0], train[0].Goal) {
		t.Errorf("importance prompt lacks the goal %q:\n%s", train[0].Goal, importance[0])
	}
	if first := firstObservation(t, suite, train[0]); !strings.Contains(questions[0], first) {
		t.Errorf("reflection questions prompt lacks the episode's first observation:\n%s", questions[0])
	}

	// The decider's answers became the actions taken, with their reasons.
	model.mu.Lock()
	decisions, problems := slices.Clone(model.decisions), slices.Clone(model.problems)
	model.mu.Unlock()
	for _, p := range problems {
		t.Error(p)
	}
	i := 0
	for _, ep := range eps {
		for _, tr := range ep.Transitions {
			if i >= len(decisions) || tr.Decision.Action != decisions[i] || tr.Decision.Thought != fmt.Sprintf("decision-%03d", i+1) {
				t.Errorf("step %d: took %q (%q), the model chose %q", i, tr.Decision.Action, tr.Decision.Thought, decisions[min(i, len(decisions)-1)])
			}
			i++
		}
	}

	// Ratings and insights landed in the stream.
	m.mu.Lock()
	mems := m.s.Memories()
	m.mu.Unlock()
	ids := map[int]bool{}
	var reflections int
	for _, x := range mems {
		ids[x.ID] = true
		switch x.Kind {
		case KindObservation:
			if x.Importance != 9 {
				t.Errorf("observation %q has importance %v, want the model's 9", x.Text, x.Importance)
			}
		case KindReflection:
			reflections++
			if !strings.HasPrefix(x.Text, "The target object was seen") && !strings.HasPrefix(x.Text, "Opened receptacles") {
				t.Errorf("reflection %q is not one of the model's insights", x.Text)
			}
			if len(x.Evidence) == 0 {
				t.Errorf("reflection %q cites no evidence", x.Text)
			}
			for _, e := range x.Evidence {
				if !ids[e] {
					t.Errorf("reflection %q cites memory %d, not an earlier memory", x.Text, e)
				}
			}
		}
	}
	if reflections == 0 {
		t.Errorf("training stored no reflection; stream: %d memories", len(mems))
	}
}

// firstObservation is the text the environment shows at the start of task.
func firstObservation(t *testing.T, suite *household.Suite, task envbridge.Task) string {
	t.Helper()
	env, err := suite.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	obs, err := env.Reset(context.Background(), task)
	if err != nil {
		t.Fatal(err)
	}
	return obs.Text
}

package arigraph_test

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/arigraph"
	arioff "github.com/samem/trainer/arigraph/offline"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/llmtest"
	"github.com/samem/trainer/llm/openai"
	"github.com/samem/trainer/runner"
)

// Phrases that tell the roles' prompts apart (one from each template).
const (
	markExtract = "into facts for a knowledge graph"
	markReplace = "Decide which existing triplets a new triplet makes out of date"
	markExplore = "Answer with one word, True or False"
	markPlan    = "You are the planning module"
	markDecide  = "You are the decision module"
)

// ruleModel stands in for a language model behind the OpenAI protocol. It
// answers the extraction prompt with what the offline rules read from the
// observation in it, the outdated-triplet prompt with RuleOutdated over the
// triplets in it, the exploration check with True, the planner with
// numbered plans, and the decider with an admissible action chosen by a
// hash of the prompt. It records its decisions and any prompt that lacked
// what it should carry.
type ruleModel struct {
	mu        sync.Mutex
	plans     int
	replaced  int // replacements it answered
	decisions []string
	problems  []string
}

func between(s, from, to string) (string, bool) {
	_, rest, ok := strings.Cut(s, from)
	if !ok {
		return "", false
	}
	out, _, ok := strings.Cut(rest, to)
	return out, ok
}

func quotedTriplets(s string) []arigraph.Triplet {
	var out []arigraph.Triplet
	for _, part := range strings.Split(s, "; ") {
		out = append(out, arigraph.ParseTriplets(strings.Trim(part, `"`))...)
	}
	return out
}

func (h *ruleModel) reply(c llmtest.Call) llmtest.Reply {
	if c.Chat == nil {
		return llmtest.Reply{}
	}
	p := c.Chat.Prompt()
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case strings.Contains(p, markExtract):
		obs, ok := between(p, "\nObservation: ", "\n\nReply with the triplets")
		if !ok {
			h.problems = append(h.problems, "extraction prompt without its observation")
		}
		return llmtest.Reply{Text: arigraph.JoinTriplets(arioff.Rules{}.Extract(envbridge.StyleHousehold, obs, "", "").Triplets)}
	case strings.Contains(p, markReplace):
		ex, ok1 := between(p, "Existing triplets: ", ".\nNew triplets: ")
		nw, ok2 := between(p, ".\nNew triplets: ", ".\n####")
		if !ok1 || !ok2 {
			h.problems = append(h.problems, "outdated-triplet prompt without its triplets")
		}
		var parts []string
		for _, r := range arioff.RuleOutdated(quotedTriplets(ex), quotedTriplets(nw)) {
			parts = append(parts, fmt.Sprintf("[%q -> %q]", r.Old.String(), r.New.String()))
		}
		h.replaced += len(parts)
		return llmtest.Reply{Text: "[" + strings.Join(parts, ", ") + "]"}
	case strings.Contains(p, markExplore):
		return llmtest.Reply{Text: "True"}
	case strings.Contains(p, markPlan):
		h.plans++
		return llmtest.Reply{Text: fmt.Sprintf(`{"main_goal": "do the task", "plan_steps": [{"sub_goal_1": "find the target object", "reason": "plan-%03d"}]}`, h.plans)}
	case strings.Contains(p, markDecide):
		if want := fmt.Sprintf("plan-%03d", h.plans); !strings.Contains(p, want) {
			h.problems = append(h.problems, "decide prompt without the latest plan "+want)
		}
		var adm []string
		if _, list, ok := strings.Cut(p, "Possible actions now: "); ok {
			if err := json.Unmarshal([]byte(strings.TrimSpace(list)), &adm); err != nil {
				h.problems = append(h.problems, "unreadable action list: "+err.Error())
			}
		}
		act := h.choose(p, adm)
		h.decisions = append(h.decisions, act)
		b, _ := json.Marshal(map[string]string{"reason_for_action": fmt.Sprintf("decision-%03d", len(h.decisions)), "action_to_take": act})
		return llmtest.Reply{Text: string(b)}
	}
	return llmtest.Reply{Fault: llmtest.Fault{Status: http.StatusBadRequest, Message: "no role matches the prompt"}}
}

// choose prefers an untried "take", then an untried "open", then an untried
// "go to" (so that the walk finds and moves things whatever the prompts'
// wording), else an admissible action by a hash of the prompt. Caller holds
// h.mu.
func (h *ruleModel) choose(prompt string, adm []string) string {
	for _, prefix := range []string{"take ", "open ", "go to "} {
		for _, a := range adm {
			if strings.HasPrefix(a, prefix) && !slices.Contains(h.decisions, a) {
				return a
			}
		}
	}
	if len(adm) == 0 {
		return "look"
	}
	f := fnv.New32a()
	f.Write([]byte(prompt))
	return adm[int(f.Sum32()%uint32(len(adm)))]
}

// TestMethodLLMOverServer runs a training and an evaluation episode of the
// household world through the runner with every AriGraph role (extraction,
// outdated triplets, exploration check, plan, decision) and the embeddings
// going through llm/openai to a local OpenAI-protocol server.
func TestMethodLLMOverServer(t *testing.T) {
	ctx := context.Background()
	model := &ruleModel{}
	srv := llmtest.NewServer(t, model.reply)
	meter := llm.NewMeter(nil)
	client, err := openai.New(openai.Config{
		ChatBaseURLs: []string{srv.URL},
		ChatModel:    "test-chat",
		EmbedModel:   "test-embed",
		EmbedDim:     llmtest.DefaultEmbedDim,
		Timeout:      10 * time.Second,
		Retries:      -1,
		Meter:        meter,
	})
	if err != nil {
		t.Fatal(err)
	}
	// Carry, so that the placements learned in training can be checked.
	m, err := arigraph.New(arigraph.Config{Carry: true}, arigraph.Deps{Chat: client, Embed: client})
	if err != nil {
		t.Fatal(err)
	}
	suite, err := household.New(household.Config{Seed: 1, Train: 6, ValidSeen: 6, ValidUnseen: 6, MaxSteps: 8})
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
	for i, st := range []agent.Start{{Task: train[0], Mode: agent.Train}, {Task: eval[0], Mode: agent.Eval}} {
		st.Style, st.Rand = suite.Style(), rand.New(rand.NewPCG(6, uint64(i)))
		ep, err := runner.Run(ctx, env, m, st)
		if err != nil {
			t.Fatalf("%s episode on %s: %v", st.Mode, st.Task.ID, err)
		}
		if o := ep.Outcome; o.Err != "" || o.Steps == 0 || !(o.Won || o.Lost || o.Truncated) {
			t.Errorf("%s episode did not complete: %+v", st.Mode, o)
		}
		eps = append(eps, ep)
	}
	if m.Size()["priors"] == 0 {
		t.Error("training stored no placements from the extracted triplets")
	}

	steps := eps[0].Outcome.Steps + eps[1].Outcome.Steps
	count := map[string]int{}
	for _, c := range srv.Calls() {
		if c.Chat == nil {
			continue
		}
		for _, mark := range []string{markExtract, markReplace, markExplore, markPlan, markDecide} {
			if strings.Contains(c.Chat.Prompt(), mark) {
				count[mark]++
			}
		}
	}
	for _, mark := range []string{markExtract, markExplore, markPlan, markDecide} {
		if count[mark] != steps {
			t.Errorf("server saw %d prompts %q for %d steps", count[mark], mark, steps)
		}
	}
	model.mu.Lock()
	decisions, problems, replaced := slices.Clone(model.decisions), slices.Clone(model.problems), model.replaced
	model.mu.Unlock()
	if count[markReplace] == 0 || replaced == 0 {
		t.Errorf("server saw %d outdated-triplet prompts and answered %d replacements; want some", count[markReplace], replaced)
	}
	for _, p := range problems {
		t.Error(p)
	}
	rep := meter.Report()
	for _, purpose := range []string{arigraph.PurposeExtract, arigraph.PurposeReplace, arigraph.PurposeExplore, arigraph.PurposePlan, arigraph.PurposeDecide, llm.EmbedPurpose} {
		if s := rep.ByPurpose[purpose]; s.Calls == 0 || s.Errors != 0 {
			t.Errorf("usage of %s = %+v, want calls and no errors", purpose, s)
		}
	}
	i := 0
	for _, ep := range eps {
		for _, tr := range ep.Transitions {
			if i >= len(decisions) || tr.Decision.Action != decisions[i] || tr.Decision.Thought != fmt.Sprintf("decision-%03d", i+1) {
				t.Errorf("step %d: took %q (%q); the model's decisions: %q", i, tr.Decision.Action, tr.Decision.Thought, decisions)
			}
			i++
		}
	}
}

package memstream

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/samem/trainer/ariadne"
	replyfmt "github.com/samem/trainer/internal/reply"
	"github.com/samem/trainer/llm"
)

// Purposes of the planning and decision calls of the memory-stream agent.
const (
	PurposePlan   = "memstream.plan"
	PurposeDecide = "memstream.decide"
)

// RAGMemory is the working memory of seed 000 Sec. 4.2's RAG baseline:
// "working memory receives history of 5 last observations and actions and 5
// retrieved observations" (retrieved by seed 001 Sec. 4.1's recency,
// importance and relevance), with the Ariadne plan and the admissible
// actions. Unlike arigraph.WorkingMemory it has no knowledge-graph facts and
// no unexplored exits: the baseline replaces the graph world model by the
// stream (seed 000 Sec. 4.2, "Ariadne architecture with the graph world model
// replaced by one of the following alternatives").
type RAGMemory struct {
	Goal        string
	History     []Step
	Observation string
	Episodes    []string // the retrieved memories, best first
	K           int      // the retrieval budget named in the prompt
	Plan        string
	Actions     []string // admissible actions, nil in free-form worlds
}

type ragData struct {
	RAGMemory
	Episodes, Actions string
}

func (wm RAGMemory) data() ragData {
	d := ragData{RAGMemory: wm, Episodes: strings.Join(wm.Episodes, "\n---\n")}
	if wm.Actions == nil {
		d.Actions = "any action in the game's own words (for example: go north, take key, open locker, examine note)"
	} else {
		b, _ := json.Marshal(wm.Actions)
		d.Actions = string(b)
	}
	return d
}

// RenderPlan renders the baseline's planning prompt: Ariadne's planner
// (seed 000 Appendix D) over the RAG working memory.
func RenderPlan(wm RAGMemory) (string, error) { return render("rag_plan.tmpl", wm.data()) }

// RenderDecide renders the baseline's ReAct decision prompt over the RAG
// working memory.
func RenderDecide(wm RAGMemory) (string, error) { return render("rag_decide.tmpl", wm.data()) }

// Decider is Ariadne's planning and decision modules with the stream as
// memory. Replies are read by package ariadne, as AriGraph's are: the reply
// forms are the same.
type Decider struct {
	Chat        llm.Chatter
	Temperature float64
}

func (d *Decider) request(purpose, prompt string, schema *llm.Schema) llm.Request {
	return llm.Request{Purpose: purpose, Messages: []llm.Message{{Role: "user", Content: prompt}}, Temperature: d.Temperature, Schema: schema}
}

// Plan creates or updates the plan; without a usable reply within
// internal/reply's budget the plan so far stays (fell back).
func (d *Decider) Plan(ctx context.Context, wm RAGMemory) (string, error) {
	p, err := RenderPlan(wm)
	if err != nil {
		return "", err
	}
	return ariadne.PlanOrKeep(ctx, d.Chat, d.request(PurposePlan, p, ariadne.PlanSchema), wm.Plan)
}

// Decide returns a reason and one action; an unreadable reply gives an
// empty action (the caller falls back to matching).
func (d *Decider) Decide(ctx context.Context, wm RAGMemory) (reason, action string, err error) {
	p, err := RenderDecide(wm)
	if err != nil {
		return "", "", err
	}
	return ariadne.DecideOrNot(ctx, d.Chat, d.request(PurposeDecide, p, replyfmt.WithChoices(ariadne.DecideSchema, "action_to_take", wm.Actions)))
}

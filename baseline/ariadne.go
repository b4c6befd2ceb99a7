package baseline

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/samem/trainer/actions"
	"github.com/samem/trainer/ariadne"
	replyfmt "github.com/samem/trainer/internal/reply"
	"github.com/samem/trainer/llm"
)

// Agent is the decision-making part a baseline's memory is given to.
type Agent string

const (
	// AgentAriadne (the default) is seed 000's Ariadne agent with its graph
	// world model replaced by the baseline's memory (Sec. 4.2): every step
	// the planning module revises a plan and the ReAct decision module picks
	// one action, both over the memory (package ariadne reads the replies,
	// as for AriGraph and the memory stream). Ariadne's exploration check
	// only switches the graph's unexplored exits into working memory
	// (Appendix B); these memories have no graph, so there is nothing for it
	// to switch, as for the RAG baseline.
	AgentAriadne Agent = "ariadne"
	// AgentActor is this project's one-call actor: a Thought/Action reply
	// (seed 002 Appendix D.2's format) over the memory, retried with
	// feedback when its action is not admissible. An option
	// (-baseline-actor).
	AgentActor Agent = "actor"
)

// Set implements flag.Value (-fullhistory-agent, -summary-agent).
func (a *Agent) Set(v string) error {
	if x := Agent(v); x.known() {
		*a = x
		return nil
	}
	return fmt.Errorf("unknown agent %q (known: %s, %s)", v, AgentAriadne, AgentActor)
}

func (a Agent) String() string { return string(a) }

func (a Agent) known() bool { return a == AgentAriadne || a == AgentActor }

// ariadneView is the working memory the Ariadne agent of a baseline sees:
// the goal, the baseline's memory (the whole episode, or the running
// summary), the observation now, the plan and the possible actions.
type ariadneView struct {
	Goal        string
	History     []Step // full history: the episode before now, the opening observation first
	Omitted     int
	SummaryMode bool   // the memory is Summary, not History
	Summary     string // summary: the running summary
	LastAction  string // the action that led to Observation ("" at the start)
	Observation string
	Plan        string
	Actions     []string // admissible actions, nil in free-form worlds
}

func (v ariadneView) data() any {
	list := "any action in the game's own words (for example: go north, take key, open locker, examine note)"
	if v.Actions != nil {
		b, _ := json.Marshal(v.Actions)
		list = string(b)
	}
	return struct {
		ariadneView
		ActionList string
	}{v, list}
}

// ariadneAgent asks the planning and decision modules for one baseline.
type ariadneAgent struct {
	chat        llm.Chatter
	emb         llm.Embedder
	temperature float64
	name        string // the baseline's name: the calls' purposes are name.plan, name.decide
}

func (a *ariadneAgent) request(purpose, prompt string, schema *llm.Schema) llm.Request {
	return llm.Request{Purpose: a.name + "." + purpose, Messages: []llm.Message{{Role: "user", Content: prompt}}, Temperature: a.temperature, Schema: schema}
}

// decide revises the plan and picks an action (seed 000 Sec. 3). It returns
// the reason, the action (mapped onto the admissible list as AriGraph's
// are; a random admissible action when nothing matches, "look" when there is
// no list and no action) and the new plan.
func (a *ariadneAgent) decide(ctx context.Context, v ariadneView, rng *rand.Rand) (reason, action, plan string, err error) {
	p, err := render("ariadne_plan.tmpl", v.data())
	if err != nil {
		return "", "", "", err
	}
	if plan, err = ariadne.PlanOrKeep(ctx, a.chat, a.request("plan", p, ariadne.PlanSchema), v.Plan); err != nil {
		return "", "", "", err
	}
	v.Plan = plan
	d, err := render("ariadne_decide.tmpl", v.data())
	if err != nil {
		return "", "", "", err
	}
	if reason, action, err = ariadne.DecideOrNot(ctx, a.chat, a.request("decide", d, replyfmt.WithChoices(ariadne.DecideSchema, "action_to_take", v.Actions))); err != nil {
		return "", "", "", err
	}
	if v.Actions != nil && !slices.Contains(v.Actions, action) {
		ok := false
		if a.emb != nil && action != "" {
			var match string
			if match, _, ok, err = actions.MatchAdmissible(ctx, a.emb, action, v.Actions); err != nil {
				return "", "", "", err
			}
			action = match
		}
		if !ok && len(v.Actions) > 0 {
			if rng != nil {
				action = v.Actions[rng.IntN(len(v.Actions))]
			} else {
				action = v.Actions[0]
			}
		}
	}
	if action == "" {
		action = "look"
	}
	return reason, action, plan, nil
}

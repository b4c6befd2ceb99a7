package ariadne

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"strings"

	replyfmt "github.com/samem/trainer/internal/reply"
	"github.com/samem/trainer/llm"
)

//go:embed prompts/*.schema.json
var promptFS embed.FS

// The JSON schemas of the planning and decision answers. AriGraph's and the
// memory stream's planners and decision modules ask for them: their replies
// have the same form whichever memory wrote the prompt.
var (
	PlanSchema   = replyfmt.LoadSchema(promptFS, "prompts/plan.schema.json", "plan")
	DecideSchema = replyfmt.LoadSchema(promptFS, "prompts/decide.schema.json", "decide")
)

// errNothing makes a reply unusable: nothing could be read from it.
var errNothing = errors.New("nothing readable in the reply")

// Ask is replyfmt.Ask for the model roles of both Ariadne agents (AriGraph's
// and the memory stream's): it reports whether an answer was read (false:
// the budget was spent and the role falls back as then says), and returns
// only a failed call's error.
func Ask(ctx context.Context, chat llm.Chatter, req llm.Request, then llm.Then, read func(replyfmt.Answer) (bool, error)) (bool, error) {
	_, err := replyfmt.Ask(ctx, chat, req, 0, then, read)
	if errors.Is(err, replyfmt.ErrUnusable) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("%s: %w", req.Purpose, err)
	}
	return true, nil
}

// ParsePlanAnswer reads a planning answer: the plan is text in working
// memory, the JSON object the server was asked for or the one in the reply
// (ParsePlan); repaired when more than the object had to be cut away.
func ParsePlanAnswer(a replyfmt.Answer) (plan string, repaired bool, err error) {
	plan = ParsePlan(a.Text)
	if plan == "" {
		return "", false, errNothing
	}
	return plan, plan != strings.TrimSpace(a.Text), nil
}

// PlanOrKeep asks a planning question and returns the plan; without a
// usable reply the plan so far, current, stays (fell back).
func PlanOrKeep(ctx context.Context, chat llm.Chatter, req llm.Request, current string) (string, error) {
	plan := current
	_, err := Ask(ctx, chat, req, llm.FellBack, func(a replyfmt.Answer) (bool, error) {
		p, repaired, err := ParsePlanAnswer(a)
		if err == nil {
			plan = p
		}
		return repaired, err
	})
	if err != nil {
		return "", err
	}
	return plan, nil
}

// ParseDecisionAnswer reads a ReAct decision: the JSON's fields when the
// server was asked for the schema and answered with it, else the text
// (ParseDecision; repaired when decorated or not the asked JSON at all).
func ParseDecisionAnswer(a replyfmt.Answer) (reason, action string, repaired, ok bool) {
	var v struct {
		Reason string `json:"reason_for_action"`
		Action string `json:"action_to_take"`
	}
	if a.Structured && replyfmt.Decode(a.Text, &v) {
		action, repaired = replyfmt.Unquote(strings.TrimSpace(v.Action))
		return strings.TrimSpace(v.Reason), action, repaired, action != ""
	}
	reason, action, ok = ParseDecision(a.Text)
	_, repaired = replyfmt.Clean(a.Text)
	return reason, action, repaired || !AsAsked(a.Text), ok
}

// DecideOrNot asks a decision question; without a readable action the
// action is empty and the caller falls back to matching or its rules (fell
// back).
func DecideOrNot(ctx context.Context, chat llm.Chatter, req llm.Request) (reason, action string, err error) {
	_, err = Ask(ctx, chat, req, llm.FellBack, func(a replyfmt.Answer) (bool, error) {
		var repaired, ok bool
		if reason, action, repaired, ok = ParseDecisionAnswer(a); !ok {
			return repaired, errNothing
		}
		return repaired, nil
	})
	return reason, action, err
}

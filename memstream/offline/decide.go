package offline

import (
	"math/rand/v2"
	"slices"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/arigraph"
	arioff "github.com/samem/trainer/arigraph/offline"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/memstream"
)

// Method is the memory-stream method's roles without a model, for
// memstream.Deps.Offline.
type Method struct{}

// Begin implements memstream.Offline.
func (Method) Begin(s agent.Start) memstream.OfflineEpisode {
	rng := s.Rand
	if rng == nil {
		rng = rand.New(rand.NewPCG(uint64(s.Task.Seed), 11))
	}
	return &episode{streamRoles: streamRoles{Style: s.Style}, s: s, rng: rng, tried: map[string]int{}}
}

// episode is one episode's roles without a model. It tracks where the
// agent is and which actions it took, as the decider needs.
type episode struct {
	streamRoles
	s       agent.Start
	rng     *rand.Rand
	loc     string // where the agent is, read from the text
	lastAct string
	tried   map[string]int
}

func (e *episode) style() envbridge.Style {
	if e.s.Style == "" {
		return envbridge.StyleFiction
	}
	return e.s.Style
}

// Decide implements memstream.OfflineEpisode with arigraph/offline's
// Decider over workingMemory.
func (e *episode) Decide(obs envbridge.Observation, got []memstream.Scored, recent []memstream.Step, k int) (reason, action string) {
	if o := (arioff.Rules{}).Extract(e.style(), obs.Text, e.lastAct, e.loc); o.Location != "" {
		e.loc = o.Location
	}
	reason, action = arioff.Decider{}.Decide(e.style(), e.workingMemory(obs, got, recent, k), e.tried, e.rng)
	e.lastAct = action
	e.tried[action]++
	return reason, action
}

// steps are memstream's steps as arigraph's.
func steps(h []memstream.Step) []arigraph.Step {
	out := make([]arigraph.Step, len(h))
	for i, s := range h {
		out[i] = arigraph.Step{Action: s.Action, Observation: s.Observation}
	}
	return out
}

// workingMemory is the offline decider's reading of the RAG working memory:
// recent history and the retrieved memories. The offline decider is a rule
// reader, not a model, so the placements stated
// in the retrieved and recent memories of this task are read as triplets
// (later statements override earlier ones), and the receptacles or exits
// they mention but do not explore are computed the same way AriGraph does,
// on a throwaway graph of those triplets only.
func (e *episode) workingMemory(obs envbridge.Observation, got []memstream.Scored, hist []memstream.Step, k int) arigraph.WorkingMemory {
	wm := arigraph.WorkingMemory{Goal: e.s.Task.Goal, History: steps(hist), Observation: obs.Text, K: k, Location: e.loc, Actions: obs.Admissible}
	type dated struct {
		t    int
		text string
	}
	var texts []dated
	for _, g := range got {
		wm.Episodes = append(wm.Episodes, g.Text)
		if g.Task == e.s.Task.ID && g.Kind == memstream.KindObservation {
			texts = append(texts, dated{g.ID, g.Text})
		}
	}
	slices.SortFunc(texts, func(a, b dated) int { return a.t - b.t })
	g := arigraph.NewGraph()
	add := func(text string) {
		ts := arioff.Rules{}.Extract(e.style(), text, "", "").Triplets
		g.Remove(func() []arigraph.Triplet {
			old := arioff.RuleOutdated(g.Triplets(), ts)
			out := make([]arigraph.Triplet, len(old))
			for i, r := range old {
				out[i] = r.Old
			}
			return out
		}()...)
		g.Add(ts...)
	}
	for _, t := range texts {
		add(t.text)
	}
	for _, h := range hist {
		add(h.Observation)
	}
	add(obs.Text)
	wm.Facts = g.Triplets()
	if e.style() == envbridge.StyleHousehold {
		wm.Exits = map[string][]string{"room": g.UnsearchedReceptacles()}
	} else {
		wm.Exits = g.AllUnexploredExits()
	}
	return wm
}

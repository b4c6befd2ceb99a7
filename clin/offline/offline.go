// Package offline is CLIN without a model: a controller that scores the
// admissible actions, read as de-indexicalised phrases of the household
// world ("opening a closed receptacle", read by package hhtext), by the
// memory items that speak of them, and a memory generator that extracts
// causal abstractions from a trial's text by rule (and free-form hints for
// the advice ablation). These rules are this project's, never the paper's;
// they let CLIN run and be tested without a model. Pass Controller and
// Generator in clin.Deps.
package offline

import (
	"context"
	"slices"
	"sort"
	"strings"

	"github.com/samem/trainer/clin"
	"github.com/samem/trainer/envbridge/household/hhtext"
)

// replay rebuilds the tracker of a trial from its text.
func replay(goal string, trace []clin.Step) *tracker {
	t := newTracker(goal)
	for _, s := range trace {
		t.update(s.Action, s.Observation, s.Reward)
	}
	return t
}

// explorationActions are what the offline controller tries in free-form
// environments (interactive fiction) when memory suggests nothing; a world
// of action templates (ScienceWorld) gets its own (clin.TemplateActions).
var explorationActions = []string{"look", "inventory", "north", "south", "east", "west", "up", "down", "take all", "open door", "examine room"}

// Controller proposes the next goal without a model: it de-indexicalises
// every admissible action into a phrase ("opening a closed receptacle"),
// scores each phrase by the selected memory items that speak about it, and
// proposes the best (seed 004 Sec. 3.3, with rules in place of the LLM):
//
//   - "X is NECESSARY to Y" adds the item's weight to X while Y is not yet
//     achieved in this trial; when X is itself a milestone that other items
//     say needs an unachieved milestone first ("heating ... is NECESSARY to
//     putting ..."), X is held back instead (the weight is subtracted), and a
//     move towards a milestone that is not ready counts nothing;
//   - "X DOES NOT CONTRIBUTE to Y" subtracts the item's weight from X;
//   - with no applicable item, untried actions are preferred, and actions that
//     did nothing before are avoided; ties are broken at random.
//
// Without memory it is therefore a curious random explorer: CLIN-BASE.
type Controller struct{}

// phraseScore is one candidate goal with its score and the memory items
// (1-based ids) that moved it.
type phraseScore struct {
	phrase string
	score  float64
	used   []int
}

// Next implements Controller.
func (Controller) Next(_ context.Context, in clin.ControllerInput) (clin.Proposal, error) {
	tr := replay(in.Task.Goal, in.Trace)
	admissible := in.Obs.Admissible
	if admissible == nil {
		// A world of templates (ScienceWorld) offers them filled with the
		// objects in view; a free-form text game has none.
		if ta := clin.TemplateActions(in.Style, in.Obs); len(ta) > 0 {
			admissible = ta
		}
	}
	cands := candidatePhrases(tr, admissible, in.Memory)
	for _, r := range in.Rejected {
		delete(cands, clin.NormPhrase(r))
	}
	if len(cands) == 0 {
		return clin.Proposal{}, nil
	}
	scores := scorePhrases(tr, cands, in.Memory)
	best := scores[0].score
	var ties []phraseScore
	for _, s := range scores {
		if s.score >= best-1e-9 {
			ties = append(ties, s)
		}
	}
	pick := ties[0]
	if len(ties) > 1 && in.Rand != nil {
		pick = ties[in.Rand.IntN(len(ties))]
	}
	return clin.Proposal{Goal: pick.phrase, Actions: realise(tr, pick.phrase, admissible), Used: pick.used}, nil
}

// realise lists the admissible actions whose phrase is goal, those not
// tried yet in this trial when there are any.
func realise(tr *tracker, goal string, admissible []string) []string {
	var fresh, all []string
	for _, a := range admissible {
		if tr.phrase(a) == clin.NormPhrase(goal) {
			all = append(all, a)
			if tr.tried[clin.NormPhrase(a)] == 0 {
				fresh = append(fresh, a)
			}
		}
	}
	if len(fresh) > 0 {
		return fresh
	}
	return all
}

// candidatePhrases maps each phrase to the actions that realise it now. In a
// free-form environment the candidates are the exploration actions and the
// X of every remembered abstraction (taken as an action).
func candidatePhrases(tr *tracker, admissible []string, mem []clin.Abstraction) map[string][]string {
	c := map[string][]string{}
	if admissible == nil {
		for _, a := range explorationActions {
			c[a] = append(c[a], a)
		}
		for _, m := range mem {
			if x := clin.NormPhrase(m.X); m.Kind == clin.Necessary && !isMilestone(x) {
				c[x] = []string{x}
			}
		}
		return c
	}
	for _, a := range admissible {
		p := tr.phrase(a)
		c[p] = append(c[p], a)
	}
	return c
}

func scorePhrases(tr *tracker, cands map[string][]string, mem []clin.Abstraction) []phraseScore {
	// blockers: milestone -> milestones said to be NECESSARY before it.
	blockers := map[string][]string{}
	for _, m := range mem {
		x, y := clin.NormPhrase(m.X), clin.NormPhrase(m.Y)
		if m.Kind == clin.Necessary && isMilestone(x) && x != phraseFind && isMilestone(y) {
			blockers[y] = append(blockers[y], x)
		}
	}
	ready := func(p string) bool {
		for _, b := range blockers[p] {
			if !tr.achieved[b] && !slices.Contains(blockers[b], p) { // a cycle blocks nothing
				return false
			}
		}
		return true
	}
	var out []phraseScore
	for p, acts := range cands {
		ps := phraseScore{phrase: p}
		untried, dead, stale := false, true, true
		for _, a := range acts {
			n := clin.NormPhrase(a)
			if tr.tried[n] == 0 {
				untried = true
			}
			if !tr.noEffect[n] {
				dead = false
			}
			if !tr.here[n] {
				stale = false
			}
		}
		switch {
		case dead:
			ps.score -= 1
		case stale:
			// Done here already with nothing changed since: no new
			// information, whatever memory says about it.
			ps.score -= 0.5
			out = append(out, ps)
			continue
		case untried:
			ps.score += 0.3
		}
		if goalNames(tr, p) {
			ps.score += 0.5
		}
		for i, m := range mem {
			if m.Kind == clin.Advice {
				// A hint names actions but not what they are necessary
				// to (advice.go): no readiness or order can be read.
				if !mentions(m.X, p) {
					continue
				}
				switch {
				case adviceAgainst.MatchString(m.X):
					ps.score--
				case isMilestone(p) && tr.achieved[p] && p != phraseFind:
					continue
				case strings.HasPrefix(p, "going to") && tr.moved[p]:
					continue
				default:
					ps.score++
				}
				ps.used = append(ps.used, i+1)
				continue
			}
			if clin.NormPhrase(m.X) != p {
				continue
			}
			y := clin.NormPhrase(m.Y)
			w := weight(m)
			switch {
			case m.Kind == clin.NotContribute:
				ps.score -= w
			case tr.achieved[y] && y != phraseComplete:
				continue // what it enables is done
			case isMilestone(p) && tr.achieved[p] && p != phraseFind:
				continue // done already (a second heating does not help)
			case isMilestone(p) && !ready(p):
				ps.score -= w
			case !isMilestone(p) && isMilestone(y) && y != phraseFind && y != phraseComplete && !ready(y):
				continue // a move towards a step that cannot be taken yet
			case strings.HasPrefix(p, "going to") && tr.moved[p]:
				continue // made this move already, and nothing changed since
			default:
				ps.score += w
			}
			ps.used = append(ps.used, i+1)
		}
		out = append(out, ps)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].phrase < out[j].phrase
	})
	return out
}

// Generator extracts causal abstractions from a trial by rule (Eq. 2
// without a model) and merges memories of several episodes (Eq. 3):
//
//   - an action that produced progress (the first sighting of the target, a
//     successful take / heat / cool / clean / put / turn-on of the target, a
//     reward) is NECESSARY to that progress; a move that immediately preceded
//     a milestone action is NECESSARY to it; each new milestone is NECESSARY
//     to the next one, in the order the trial reached them;
//   - in a failed trial, an action repeated without any progress following
//     it DOES NOT CONTRIBUTE to completing the task, unless some memory says
//     it is NECESSARY to something;
//   - modifiers follow how often the evidence repeats: "may" when only this
//     trial shows it, "should" when an earlier memory in the window of three
//     had it too. Items not re-confirmed are kept while they came from a
//     rewarded trial or were confirmed within the last three trials, and
//     dropped otherwise (the memory "does not grow monotonically", Sec. 3.2).
type Generator struct{}

// extract lists the abstractions one trial shows, without modifiers, and
// the milestones the trial reached, in order.
func extract(goal string, trace []clin.Step, won bool) (items []clin.Abstraction, reached []string) {
	tr := newTracker(goal)
	type stepInfo struct {
		phrase string
		events []string
		// effect: the step made progress or showed something new (a place
		// or contents not seen before in this trial).
		effect bool
	}
	info := make([]stepInfo, len(trace))
	add := func(k clin.Kind, x, y string) {
		a := clin.Abstraction{Kind: k, X: x, Y: y}
		for _, f := range items {
			if f.Key() == a.Key() {
				return
			}
		}
		items = append(items, a)
	}
	seenObs := map[string]bool{}
	last := "" // the milestone the next one may depend on; "" when the chain is broken
	for i, s := range trace {
		p, ev := tr.update(s.Action, s.Observation, s.Reward)
		kind := hhtext.ParseObservation(s.Observation).Kind
		obs := strings.TrimSpace(s.Observation)
		newInfo := !seenObs[obs] && (kind == hhtext.Arrive || kind == hhtext.Open || kind == hhtext.Examine || kind == hhtext.Unknown)
		seenObs[obs] = true
		info[i] = stepInfo{phrase: p, events: ev, effect: len(ev) > 0 || newInfo}
		if (kind == hhtext.Take || kind == hhtext.Put) && !slices.Contains(ev, p) {
			last = "" // the object changed hands outside the chain: what follows was not enabled by it
		}
		for _, y := range ev {
			if y != p {
				add(clin.Necessary, p, y)
			}
			// The move that brought the agent to a milestone action, when it
			// names a role ("going to the microwave", "... where the target
			// object was seen"), not just "an unvisited receptacle".
			if y == p && i > 0 && specificMove(info[i-1].phrase) {
				add(clin.Necessary, info[i-1].phrase, p)
			}
			if y != p || y == phraseFind {
				continue
			}
			// Each milestone is NECESSARY to the next one it enabled, unless
			// the trial reached that one first (no cycles: "putting" does
			// not enable the second "taking" of a two-object task).
			if last != "" && last != y && !slices.Contains(reached, y) {
				add(clin.Necessary, last, y)
			}
			last = y
			if !slices.Contains(reached, y) {
				reached = append(reached, y)
			}
		}
	}
	if won {
		return items, reached
	}
	necX := map[string]bool{}
	for _, f := range items {
		necX[clin.NormPhrase(f.X)] = true
	}
	futile, helped := map[string]int{}, map[string]bool{}
	var order []string
	for _, s := range info {
		if s.effect {
			helped[s.phrase] = true
			continue
		}
		if futile[s.phrase] == 0 {
			order = append(order, s.phrase)
		}
		futile[s.phrase]++
	}
	for _, p := range order {
		if futile[p] >= 2 && !helped[p] && !necX[p] && !isMilestone(p) {
			add(clin.NotContribute, p, phraseComplete)
		}
	}
	return items, reached
}

// specificMove is a move whose phrase names a role of the task.
func specificMove(p string) bool {
	return strings.HasPrefix(p, "going to") && p != "going to an unvisited receptacle" && p != "going to a visited receptacle"
}

// Adapt implements Generator (Eq. 2).
func (Generator) Adapt(_ context.Context, in clin.AdaptInput) ([]clin.Abstraction, error) {
	if in.Advice {
		return adviseAdapt(in), nil
	}
	fresh, reached := extract(in.Task.Goal, in.Trace, in.Won)
	var skipped []string
	if in.Won {
		// A won trial that never reached a milestone shows it is not needed:
		// earlier claims that it is NECESSARY are dropped, and the contrast
		// is remembered.
		skipped = unreached(in.Previous, reached)
		for _, m := range skipped {
			fresh = append(fresh, clin.Abstraction{Kind: clin.NotContribute, X: m, Y: phraseComplete})
		}
	}
	return mergeAdapt(fresh, in.Previous, in.Trial, in.Reward, skipped), nil
}

// unreached lists the milestones (other than finding and completing) that
// previous memories mention and the trial did not reach.
func unreached(prev []clin.Memory, reached []string) []string {
	var out []string
	for _, m := range prev {
		for _, it := range m.Items {
			if it.Kind != clin.Necessary {
				continue
			}
			for _, p := range []string{clin.NormPhrase(it.X), clin.NormPhrase(it.Y)} {
				if isMilestone(p) && p != phraseFind && p != phraseComplete && !slices.Contains(reached, p) && !slices.Contains(out, p) {
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// mergeAdapt combines this trial's evidence with the last memories.
func mergeAdapt(fresh []clin.Abstraction, prev []clin.Memory, trial int, reward float64, refuted []string) []clin.Abstraction {
	inPrev := func(key string) int {
		n := 0
		for _, m := range prev {
			for _, it := range m.Items {
				if it.Key() == key {
					n++
					break
				}
			}
		}
		return n
	}
	necX := map[string]bool{}
	for _, m := range prev {
		for _, it := range m.Items {
			if it.Kind == clin.Necessary && !slices.Contains(refuted, clin.NormPhrase(it.X)) {
				necX[clin.NormPhrase(it.X)] = true
			}
		}
	}
	for _, f := range fresh {
		if f.Kind == clin.Necessary {
			necX[clin.NormPhrase(f.X)] = true
		}
	}
	var out []clin.Abstraction
	seen := map[string]bool{}
	for _, f := range fresh {
		if f.Kind == clin.NotContribute && necX[clin.NormPhrase(f.X)] {
			continue
		}
		f.Modifier = clin.ModMay
		if inPrev(f.Key()) > 0 {
			f.Modifier = clin.ModShould
		}
		f.Trial, f.Reward = trial, reward
		out = append(out, f)
		seen[f.Key()] = true
	}
	if len(prev) == 0 {
		return out
	}
	for _, it := range prev[len(prev)-1].Items {
		if seen[it.Key()] {
			continue
		}
		if it.Kind == clin.NotContribute && necX[clin.NormPhrase(it.X)] {
			continue // contradicted by evidence of necessity
		}
		if it.Kind == clin.Necessary && (slices.Contains(refuted, clin.NormPhrase(it.X)) || slices.Contains(refuted, clin.NormPhrase(it.Y))) {
			continue // contradicted by a win without it
		}
		if it.Kind == clin.Necessary && seen[clin.Abstraction{Kind: clin.Necessary, X: it.Y, Y: it.X}.Key()] {
			continue // the order this trial showed is the reverse
		}
		// Evidence of necessity is kept, and so is a DOES NOT CONTRIBUTE
		// item that two trials confirmed; one seen once lives while some
		// trial of the last three confirmed it.
		if it.Kind == clin.Necessary || it.Modifier == clin.ModShould || it.Reward > 0 || it.Trial >= trial-2 {
			out = append(out, it)
			seen[it.Key()] = true
		}
	}
	return out
}

// Meta implements Generator (Eq. 3): the items of the archived memories,
// counted across memories; "should" when at least two memories share an
// item, "may" otherwise; a DOES NOT CONTRIBUTE item is dropped when more
// memories say its action is NECESSARY.
//
// GEN-TASK (in.GenTask) merges the same way: the archive then holds other
// task types' memories, whose items about "the target object" carry over
// and whose type-specific items may mislead, as the paper warns (Sec. 5C).
// Advice items are merged by their text and keep no modifier.
func (Generator) Meta(_ context.Context, in clin.MetaInput) ([]clin.Abstraction, error) {
	out := mergeMeta(in.Archive)
	for i := range out {
		if out[i].Kind == clin.Advice {
			out[i].Modifier = clin.ModNone
		}
	}
	return out, nil
}

func mergeMeta(archive []clin.Archived) []clin.Abstraction {
	type agg struct {
		a      clin.Abstraction
		n      int
		reward float64
		first  int
	}
	byKey := map[string]*agg{}
	necCount := map[string]int{}
	order := 0
	for _, m := range archive {
		counted := map[string]bool{}
		for _, it := range m.Items {
			k := it.Key()
			if counted[k] {
				continue
			}
			counted[k] = true
			g := byKey[k]
			if g == nil {
				g = &agg{a: it, first: order}
				order++
				byKey[k] = g
			}
			g.n++
			g.reward += m.Reward
			if it.Kind == clin.Necessary {
				necCount[clin.NormPhrase(it.X)]++
			}
		}
	}
	var aggs []*agg
	for _, g := range byKey {
		if g.a.Kind == clin.NotContribute && necCount[clin.NormPhrase(g.a.X)] >= g.n {
			continue
		}
		aggs = append(aggs, g)
	}
	sort.Slice(aggs, func(i, j int) bool {
		a, b := aggs[i], aggs[j]
		if a.a.Kind != b.a.Kind {
			return a.a.Kind == clin.Necessary
		}
		if a.n != b.n {
			return a.n > b.n
		}
		return a.first < b.first
	})
	out := make([]clin.Abstraction, 0, len(aggs))
	for _, g := range aggs {
		a := g.a
		a.Modifier = clin.ModMay
		if g.n >= 2 {
			a.Modifier = clin.ModShould
		}
		a.Trial, a.Reward = -1, g.reward/float64(g.n)
		out = append(out, a)
	}
	return out
}

// goalNames says whether the goal text itself asks for the phrase's
// transformation ("heat some apple ..." for "heating the target object with
// the microwave", "look at ... under the desklamp" for "turning on the
// lamp"): the one piece of task knowledge the offline controller reads from
// the goal, as a model would.
func goalNames(tr *tracker, p string) bool {
	if !tr.goal.ok {
		return false
	}
	switch tr.goal.Type {
	case hhtext.PickHeat:
		return strings.HasPrefix(p, "heating the target object")
	case hhtext.PickCool:
		return strings.HasPrefix(p, "cooling the target object")
	case hhtext.PickClean:
		return strings.HasPrefix(p, "cleaning the target object")
	case hhtext.LookInLight:
		return p == "turning on the lamp"
	}
	return false
}

// weight is how strongly the offline controller trusts an item: "should"
// (low uncertainty) 2, a plain statement 1.5, "may" 1.
func weight(a clin.Abstraction) float64 {
	switch a.Modifier {
	case clin.ModShould:
		return 2
	case clin.ModMay:
		return 1
	default:
		return 1.5
	}
}

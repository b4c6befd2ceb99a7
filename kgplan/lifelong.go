package kgplan

import (
	"slices"

	"github.com/samem/trainer/pddl"
)

// Lifelong memory (seed 003, title and Sec. I: the knowledge graph is the
// agent's memory base, kept "across different planning tasks", Sec. II). The
// harness resets a task's world before each episode, so what carries over is
// the graph as the world will be after the reset: everything the agent saw,
// with the changes its own actions made undone. After a training episode
// the method keeps, per task (its environment instance), that graph; the
// next episode of the task starts from it, so the planner can plan for the
// goal at once from remembered places instead of exploring.

// touch records the entities a step of the agent changes (every argument
// but the agent and a goto's places, which moving does not change).
func (e *episode) touch(st pddl.Step) {
	if st.Action == "goto" {
		return
	}
	for _, a := range st.Args {
		if n := FromPDDL(a); n != Agent {
			e.touched[n] = true
		}
	}
}

// resetKnowledge returns the episode's graph with the agent's own changes
// undone: the agent's triplets dropped (the first observation of the next
// episode states them), each object the agent handled put back where it was
// first seen, receptacles it opened closed again, and the states it gave
// objects (clean, hot, cool, toggled) dropped. ok is false when the result
// does not verify against the domain; nothing is kept then.
func (e *episode) resetKnowledge() (*Graph, bool) {
	g := e.g.clone()
	first := map[string]Triplet{} // object -> first "in" triplet seen
	for _, c := range g.history {
		if c.Op == "add" && c.Triplet.Relation == "in" {
			if _, ok := first[c.Triplet.Subject]; !ok {
				first[c.Triplet.Subject] = c.Triplet
			}
		}
	}
	var u Update
	for _, t := range g.Triplets() {
		switch {
		case t.Subject == Agent:
			u.Remove = append(u.Remove, t)
		case !e.touched[t.Subject]:
		case t.Relation == "in":
			u.Remove = append(u.Remove, t)
		case t.Relation == "opened" && t.Object == True && g.Has(Triplet{t.Subject, "openable", True}):
			u.Add = append(u.Add, Triplet{t.Subject, "opened", False})
		case slices.Contains([]string{"clean", "hot", "cool", "toggled"}, t.Relation) && t.Object == True:
			u.Remove = append(u.Remove, t)
		}
	}
	for o := range e.touched {
		if t, ok := first[o]; ok && t.Object != Agent {
			u.Add = append(u.Add, t)
		}
	}
	slices.SortFunc(u.Add, compareTriplets)
	if err := g.Apply(u, e.step, "reset"); err != nil {
		return nil, false
	}
	return g, true
}

package kgplan

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/samem/trainer/pddl"
)

// Lifelong memory (seed 003, title and Sec. I: the knowledge graph is the
// agent's memory base, kept "across different planning tasks", Sec. II). The
// harness resets a task's world before each episode, so what carries over is
// the graph as the world will be after the reset: everything the agent saw,
// with the changes its own actions made undone. After a training episode
// the method keeps that graph twice: under the task (its environment
// instance: a replay of the task finds every object where it was) and under
// the task's scene (the room the episode starts in, whatever task is set in
// it). An episode starts from its task's graph, else from its scene's, so
// that a held-out task in a trained scene (the household's valid_seen
// floor plans, ALFWorld's seen scenes) starts from the remembered room and
// the planner can plan at once from remembered places. Where the world
// places objects anew for each task of a scene, remembered placements may
// be stale; the first look at a receptacle corrects them (the update removes
// what it no longer lists) and the plan is made again.

// SceneKey names the scene an episode starts in: a hash of its first
// observation with the goal's text taken out, so that the tasks set in one
// room (the same opening description) share it. It reads nothing of the
// world's text beyond the observation and the task's goal.
func SceneKey(goal, first string) string {
	if g := strings.TrimSpace(goal); g != "" {
		first = strings.ReplaceAll(first, g, "")
	}
	h := fnv.New64a()
	h.Write([]byte(strings.TrimSpace(first)))
	return fmt.Sprintf("scene:%016x", h.Sum64())
}

// recall returns the graph an episode starts from: a copy of the task's
// kept graph, else of its scene's, else g; and which one it was.
func (m *Method) recall(taskID, scene string, g *Graph) (*Graph, string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if known := m.graphs[taskID]; known != nil {
		return known.clone(), "task"
	}
	if known := m.graphs[scene]; known != nil {
		return known.clone(), "scene"
	}
	return g, ""
}

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

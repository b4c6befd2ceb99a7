package arigraph

import (
	"context"
	"fmt"
	"strings"
)

// locationRels are relations that place an object somewhere; an object is in
// one place at a time.
var locationRels = map[string]bool{
	"is in": true, "is on": true, "is at": true, "in": true, "on": true,
	"is inside": true, "located in": true, "is located in": true,
}

// LocationRelation reports whether rel places an object somewhere ("is in",
// "is on", ...): an object is in one place at a time.
func LocationRelation(rel string) bool { return locationRels[rel] }

// Outdater finds the existing edges that new ones make outdated.
type Outdater interface {
	Outdated(ctx context.Context, existing, fresh []Triplet) ([]Replacement, error)
}

// Update is what one learning step changed.
type Update struct {
	New     []Triplet     // E_s^t, the triplets extracted from the observation
	Removed []Replacement // outdated edges and what replaced them
}

// Learn is the learning step of seed 000 Sec. 2: the new triplets E_s^t
// (extracted by the caller) name vertices V_s^t; the edges incident to them
// E_s^rel are checked for outdated ones, which are removed; then E_s^t and
// the episodic vertex of the observation (with its episodic edge to E_s^t)
// are added. The edges E_s^rel exclude the new triplets themselves.
func (g *Graph) Learn(ctx context.Context, od Outdater, step int, observation string, fresh []Triplet) (Update, error) {
	var clean []Triplet
	seen := map[Triplet]bool{}
	for _, t := range fresh {
		t = t.Norm()
		if t.Valid() && !seen[t] {
			seen[t] = true
			clean = append(clean, t)
		}
	}
	var rel []Triplet
	for _, e := range g.Incident(tripletEntities(clean)) {
		if !seen[e] {
			rel = append(rel, e)
		}
	}
	var reps []Replacement
	if len(rel) > 0 && len(clean) > 0 {
		var err error
		reps, err = od.Outdated(ctx, rel, clean)
		if err != nil {
			return Update{}, fmt.Errorf("outdated edges at step %d: %w", step, err)
		}
		old := make([]Triplet, len(reps))
		for i, r := range reps {
			old[i] = r.Old
		}
		g.Remove(old...)
	}
	g.Add(clean...)
	g.AddEpisode(step, strings.TrimSpace(observation), clean)
	return Update{New: clean, Removed: reps}, nil
}

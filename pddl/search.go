package pddl

import (
	"container/heap"
	"context"
	"fmt"
	"math"
)

// Planner finds a plan for a problem over a domain.
type Planner interface {
	// Plan returns a plan that reaches p's goal from p's initial state.
	// ErrNoPlan: the goal is unreachable; ErrLimit: the planner gave up;
	// ErrUndefined / ErrSyntax: the problem does not fit the domain.
	Plan(ctx context.Context, d *Domain, p *Problem) (Plan, error)
}

// DefaultMaxExpansions is AStar's search budget when MaxExpansions is 0.
const DefaultMaxExpansions = 200_000

// AStar is the built-in planner: A* over grounded STRIPS actions of unit
// cost, with the h_max heuristic (Bonet & Geffner 2001), which is admissible,
// so the plans it returns are shortest. Negative preconditions are ignored by
// the heuristic (a relaxation, so admissibility holds). The zero value is
// ready to use.
type AStar struct {
	// MaxExpansions bounds the number of expanded states (default
	// DefaultMaxExpansions); reaching it gives ErrLimit.
	MaxExpansions int
}

var _ Planner = (*AStar)(nil)

// Plan implements Planner.
func (s *AStar) Plan(ctx context.Context, d *Domain, p *Problem) (Plan, error) {
	g, err := ground(d, p)
	if err != nil {
		return nil, fmt.Errorf("ground %s: %w", p.Name, err)
	}
	limit := s.MaxExpansions
	if limit <= 0 {
		limit = DefaultMaxExpansions
	}
	return g.astar(ctx, limit)
}

// searchNode is one reached state.
type searchNode struct {
	state  bitset
	g, h   int
	parent int // index in nodes, -1 at the root
	action int // ground action that led here, -1 at the root
}

type bitset []uint64

func (b bitset) has(i int) bool { return b[i>>6]&(1<<(uint(i)&63)) != 0 }
func (b bitset) set(i int)      { b[i>>6] |= 1 << (uint(i) & 63) }
func (b bitset) clear(i int)    { b[i>>6] &^= 1 << (uint(i) & 63) }
func (b bitset) key() string {
	buf := make([]byte, 8*len(b))
	for i, w := range b {
		for j := range 8 {
			buf[8*i+j] = byte(w >> (8 * j))
		}
	}
	return string(buf)
}

// openList orders node indices by f = g + h, then by larger g (deeper first,
// which reaches the goal sooner among equal f), then by insertion order.
type openList struct {
	nodes *[]searchNode
	items []int
}

func (o *openList) Len() int { return len(o.items) }
func (o *openList) Less(i, j int) bool {
	a, b := (*o.nodes)[o.items[i]], (*o.nodes)[o.items[j]]
	if fa, fb := a.g+a.h, b.g+b.h; fa != fb {
		return fa < fb
	}
	if a.g != b.g {
		return a.g > b.g
	}
	return o.items[i] < o.items[j]
}
func (o *openList) Swap(i, j int) { o.items[i], o.items[j] = o.items[j], o.items[i] }
func (o *openList) Push(x any)    { o.items = append(o.items, x.(int)) }
func (o *openList) Pop() any {
	n := len(o.items) - 1
	x := o.items[n]
	o.items = o.items[:n]
	return x
}

func (g *grounded) astar(ctx context.Context, limit int) (Plan, error) {
	words := (len(g.facts) + 63) / 64
	hm := newHmax(g)
	start := make(bitset, words)
	for _, f := range g.init {
		start.set(f)
	}
	nodes := []searchNode{{state: start, parent: -1, action: -1, h: hm.eval(start)}}
	if nodes[0].h == math.MaxInt {
		return nil, fmt.Errorf("%w: goal unreachable even ignoring deletes", ErrNoPlan)
	}
	best := map[string]int{start.key(): 0}
	open := &openList{nodes: &nodes, items: []int{0}}
	expanded := 0
	for open.Len() > 0 {
		cur := heap.Pop(open).(int)
		n := nodes[cur]
		if b, ok := best[n.state.key()]; ok && b < n.g {
			continue // a cheaper path to this state was found after this entry was queued
		}
		if n.state.has(g.goal) {
			return g.extract(nodes, cur), nil
		}
		expanded++
		if expanded > limit {
			return nil, fmt.Errorf("%w: %d states expanded", ErrLimit, limit)
		}
		if expanded%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("%w: %w", ErrLimit, err)
			}
		}
	actions:
		for ai := range g.actions {
			a := &g.actions[ai]
			for _, f := range a.pre {
				if !n.state.has(f) {
					continue actions
				}
			}
			for _, f := range a.neg {
				if n.state.has(f) {
					continue actions
				}
			}
			next := make(bitset, words)
			copy(next, n.state)
			for _, f := range a.del {
				next.clear(f)
			}
			for _, f := range a.add {
				next.set(f)
			}
			ng := n.g + a.cost
			k := next.key()
			if b, ok := best[k]; ok && b <= ng {
				continue
			}
			h := hm.eval(next)
			if h == math.MaxInt {
				continue // dead end
			}
			best[k] = ng
			nodes = append(nodes, searchNode{state: next, g: ng, h: h, parent: cur, action: ai})
			heap.Push(open, len(nodes)-1)
		}
	}
	return nil, fmt.Errorf("%w: search space exhausted after %d states", ErrNoPlan, expanded)
}

func (g *grounded) extract(nodes []searchNode, i int) Plan {
	var rev Plan
	for ; nodes[i].parent >= 0; i = nodes[i].parent {
		st := g.actions[nodes[i].action].step
		if st.Action == goalAction {
			continue
		}
		rev = append(rev, st)
	}
	plan := make(Plan, len(rev))
	for i, s := range rev {
		plan[len(rev)-1-i] = s
	}
	return plan
}

// hmax evaluates the h_max heuristic: the cost of the goal fact where the
// cost of a set of facts is the cost of its most expensive member.
type hmax struct {
	g       *grounded
	byPre   [][]int // fact -> actions with it as a precondition
	cost    []int
	waiting []int // per action: preconditions not yet reached
	acost   []int // per action: max cost of its preconditions so far
	buckets [][]int
}

func newHmax(g *grounded) *hmax {
	h := &hmax{g: g, byPre: make([][]int, len(g.facts)), cost: make([]int, len(g.facts)),
		waiting: make([]int, len(g.actions)), acost: make([]int, len(g.actions))}
	for ai, a := range g.actions {
		for _, f := range a.pre {
			h.byPre[f] = append(h.byPre[f], ai)
		}
	}
	return h
}

// eval returns h_max(s), or math.MaxInt when the goal is unreachable.
func (h *hmax) eval(s bitset) int {
	for i := range h.cost {
		h.cost[i] = math.MaxInt
	}
	h.buckets = h.buckets[:0]
	push := func(f, c int) {
		if c >= h.cost[f] {
			return
		}
		h.cost[f] = c
		for len(h.buckets) <= c {
			h.buckets = append(h.buckets, nil)
		}
		h.buckets[c] = append(h.buckets[c], f)
	}
	for ai, a := range h.g.actions {
		h.waiting[ai] = len(a.pre)
		h.acost[ai] = 0
		if len(a.pre) == 0 {
			for _, f := range a.add {
				push(f, a.cost)
			}
		}
	}
	for i := range h.g.facts {
		if s.has(i) {
			push(i, 0)
		}
	}
	for c := 0; c < len(h.buckets); c++ {
		for k := 0; k < len(h.buckets[c]); k++ {
			f := h.buckets[c][k]
			if h.cost[f] != c {
				continue // stale entry
			}
			if f == h.g.goal {
				return c
			}
			for _, ai := range h.byPre[f] {
				if c > h.acost[ai] {
					h.acost[ai] = c
				}
				h.waiting[ai]--
				if h.waiting[ai] == 0 {
					a := &h.g.actions[ai]
					for _, e := range a.add {
						push(e, h.acost[ai]+a.cost)
					}
				}
			}
		}
	}
	return math.MaxInt
}

// Package household is a built-in ALFWorld-style household world: one room
// with numbered receptacles and objects, the six ALFWorld task types, the
// exact ALFWorld text and action grammar, splits (train, valid_seen,
// valid_unseen) generated from a seed, and an expert that solves every task.
//
// It runs anywhere, fast and deterministically, and it speaks the text of the
// benchmark on which SAMem reports its headline numbers (seed 002, Table 1 and
// Appendix B). Its text is parsed by package hhtext.
//
// Rules (ALFWorld's, ../shared/ALFWORLD-FACTS.md): openable receptacles start
// closed and hide their contents; one object in hand; cleaning needs a
// sinkbasin, heating a microwave, cooling a fridge (being at one with the
// object in hand is enough, as in ALFWorld); a look task is won when the agent
// holds the object by the lamp and the lamp is on. Anything invalid or
// unparsable is answered "Nothing happens." and costs a step. Reward 1, done
// and won when the goal holds; truncated at the task's MaxSteps.
package household

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household/hhtext"
)

// Grammar selects the ALFWorld version whose place action the world speaks.
type Grammar int

const (
	// Grammar03 (default): "put {obj} in/on {recep}", answered "You put the
	// {obj} in/on the {recep}." (ALFWorld 0.3).
	Grammar03 Grammar = iota
	// Grammar04: "move {obj} to {recep}", answered "You move the {obj} to the
	// {recep}." (ALFWorld 0.4).
	Grammar04
)

// Default sizes and limits.
const (
	DefaultTrain       = 600 // tasks in train
	DefaultValidSeen   = 140 // tasks in valid_seen (ALFWorld's valid_seen size)
	DefaultValidUnseen = 134 // tasks in valid_unseen (ALFWorld's valid_unseen size; seed 002 B.1)
	DefaultMaxSteps    = 50  // truncation limit per episode
)

// Config configures a Suite. The zero value gives the defaults.
type Config struct {
	// Seed determines floor plans, the unseen pairings and every task. The
	// same seed gives byte-identical task lists and texts.
	Seed int64
	// Train, ValidSeen and ValidUnseen are split sizes in tasks; 0 means the
	// default (600, 140, 134). Each split's mix of task types follows
	// ALFWorld's split of the same name (valid_unseen at 134: pick 24, look
	// 18, clean 31, heat 23, cool 21, pick two 17), scaled to the size.
	Train, ValidSeen, ValidUnseen int
	// MaxSteps is the truncation limit of every task; 0 means 50.
	MaxSteps int
	// Grammar selects the place action's form; default Grammar03.
	Grammar Grammar
}

// ErrConfig is returned (wrapped) by New for an invalid Config.
var ErrConfig = errors.New("invalid household config")

// ALFWorld's task mixes per split, in TaskTypes order (pick, look, clean,
// heat, cool, pick two): train of ALFWorld 2.1 (3553 tasks), valid_seen (140)
// and valid_unseen (134, seed 002 Appendix B.1).
var mixes = map[string][]int{
	envbridge.SplitTrain:       {790, 308, 650, 459, 533, 813},
	envbridge.SplitValidSeen:   {35, 13, 27, 16, 25, 24},
	envbridge.SplitValidUnseen: {24, 18, 31, 23, 21, 17},
}

var splitOrder = []string{envbridge.SplitTrain, envbridge.SplitValidSeen, envbridge.SplitValidUnseen}

// Suite is the household world's task suite; it implements envbridge.Suite
// and is safe for concurrent use (it is read-only after New).
type Suite struct {
	cfg    Config
	splits map[string][]envbridge.Task
	specs  map[string]*spec
}

var _ envbridge.Suite = (*Suite)(nil)

// New generates the floor plans and the tasks of every split.
func New(cfg Config) (*Suite, error) {
	sizes := map[string]*int{envbridge.SplitTrain: &cfg.Train, envbridge.SplitValidSeen: &cfg.ValidSeen, envbridge.SplitValidUnseen: &cfg.ValidUnseen}
	defaults := map[string]int{envbridge.SplitTrain: DefaultTrain, envbridge.SplitValidSeen: DefaultValidSeen, envbridge.SplitValidUnseen: DefaultValidUnseen}
	for _, sp := range splitOrder {
		p := sizes[sp]
		if *p < 0 || *p > 100000 {
			return nil, fmt.Errorf("%w: %s size %d (want 0..100000)", ErrConfig, sp, *p)
		}
		if *p == 0 {
			*p = defaults[sp]
		}
	}
	if cfg.MaxSteps < 0 {
		return nil, fmt.Errorf("%w: MaxSteps %d", ErrConfig, cfg.MaxSteps)
	}
	if cfg.MaxSteps == 0 {
		cfg.MaxSteps = DefaultMaxSteps
	}
	if cfg.Grammar != Grammar03 && cfg.Grammar != Grammar04 {
		return nil, fmt.Errorf("%w: Grammar %d", ErrConfig, cfg.Grammar)
	}
	s := &Suite{cfg: cfg, splits: map[string][]envbridge.Task{}, specs: map[string]*spec{}}
	g := newGenerator(cfg.Seed)
	for _, split := range splitOrder {
		counts := apportion(*sizes[split], mixes[split])
		for ti, typ := range TaskTypes() {
			for i := range counts[ti] {
				sp, err := g.task(split, typ, i)
				if err != nil {
					return nil, err
				}
				sp.task.MaxSteps = cfg.MaxSteps
				sp.expert, err = plan(sp, cfg.Grammar)
				if err != nil {
					return nil, fmt.Errorf("expert for %s: %w", sp.task.ID, err)
				}
				sp.task.OracleSteps = len(sp.expert)
				s.specs[sp.task.ID] = sp
				s.splits[split] = append(s.splits[split], sp.task)
			}
		}
	}
	return s, nil
}

// apportion splits total over weights by largest remainder (ties to the
// earlier weight), so that the default valid_unseen reproduces ALFWorld's mix.
func apportion(total int, weights []int) []int {
	sum := 0
	for _, w := range weights {
		sum += w
	}
	out := make([]int, len(weights))
	rem := make([]float64, len(weights))
	given := 0
	for i, w := range weights {
		exact := float64(total) * float64(w) / float64(sum)
		out[i] = int(math.Floor(exact))
		rem[i] = exact - float64(out[i])
		given += out[i]
	}
	order := make([]int, len(weights))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case rem[a] > rem[b]:
			return -1
		case rem[a] < rem[b]:
			return 1
		}
		return 0
	})
	for k := 0; given < total; k++ {
		out[order[k%len(order)]]++
		given++
	}
	return out
}

// Name is "household".
func (s *Suite) Name() string { return "household" }

// Style is envbridge.StyleHousehold.
func (s *Suite) Style() envbridge.Style { return envbridge.StyleHousehold }

// Splits returns train, valid_seen, valid_unseen.
func (s *Suite) Splits() []string { return slices.Clone(splitOrder) }

// Tasks lists a split's tasks grouped by type in TaskTypes order. The slice is
// the caller's.
func (s *Suite) Tasks(split string) ([]envbridge.Task, error) {
	ts, ok := s.splits[split]
	if !ok {
		return nil, fmt.Errorf("household split %q: %w", split, envbridge.ErrUnknownSplit)
	}
	return slices.Clone(ts), nil
}

// Config returns the configuration with defaults filled in.
func (s *Suite) Config() Config { return s.cfg }

// Open returns a new environment; it never blocks.
func (s *Suite) Open(ctx context.Context) (envbridge.Env, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.NewEnv(), nil
}

// NewEnv returns a new environment as its concrete type.
func (s *Suite) NewEnv() *Env { return &Env{s: s, at: -1, held: -1} }

func (s *Suite) spec(id string) (*spec, error) {
	sp, ok := s.specs[id]
	if !ok {
		return nil, fmt.Errorf("household task %q: %w", id, envbridge.ErrUnknownTask)
	}
	return sp, nil
}

// Expert returns a plan (actions in the suite's grammar) that wins the task
// from its start state; its length is the task's OracleSteps. An unknown id
// gives envbridge.ErrUnknownTask.
func (s *Suite) Expert(taskID string) ([]string, error) {
	sp, err := s.spec(taskID)
	if err != nil {
		return nil, err
	}
	return slices.Clone(sp.expert), nil
}

// generator draws tasks. Floor plans and the unseen pairings are fixed by the
// seed; each task has its own random stream, so that a task does not change
// when another split is resized.
type generator struct {
	seed    int64
	layouts map[string][]*layout            // split -> floor plans it may use
	unseen  map[pairKey]bool                // goal pairings reserved for valid_unseen
	pairs   map[string]map[string][]pairKey // type -> room -> pairings possible in the room
	trained map[string]bool                 // train's (layout, type, object, destination) combinations
}

func newGenerator(seed int64) *generator {
	g := &generator{seed: seed, layouts: map[string][]*layout{}, pairs: map[string]map[string][]pairKey{}, trained: map[string]bool{}}
	r := rand.New(rand.NewPCG(uint64(seed), hash("plans")))
	for _, room := range rooms {
		plans := make([]int, PlansPerRoom)
		for i := range plans {
			plans[i] = i + 1
		}
		r.Shuffle(len(plans), func(i, j int) { plans[i], plans[j] = plans[j], plans[i] })
		unseen := plans[:UnseenPlansPerRoom]
		slices.Sort(unseen)
		seen := plans[UnseenPlansPerRoom:]
		slices.Sort(seen)
		for _, p := range seen {
			l := newLayout(seed, room, p)
			g.layouts[envbridge.SplitTrain] = append(g.layouts[envbridge.SplitTrain], l)
			g.layouts[envbridge.SplitValidSeen] = append(g.layouts[envbridge.SplitValidSeen], l)
		}
		for _, p := range unseen {
			g.layouts[envbridge.SplitValidUnseen] = append(g.layouts[envbridge.SplitValidUnseen], newLayout(seed, room, p))
		}
	}
	for _, typ := range TaskTypes() {
		g.pairs[typ] = map[string][]pairKey{}
		for _, room := range taskRooms[typ] {
			for _, obj := range roomObjects[room] {
				if !suits(typ, obj) {
					continue
				}
				if typ == hhtext.LookInLight {
					for _, lk := range lightKinds {
						g.pairs[typ][room] = append(g.pairs[typ][room], pairKey{obj, lk})
					}
					continue
				}
				for _, rr := range roomReceptacles[room] {
					if destinationOK(typ, rr.kind, obj) {
						g.pairs[typ][room] = append(g.pairs[typ][room], pairKey{obj, rr.kind})
					}
				}
			}
		}
	}
	g.unseen = partition(seed, g.pairs)
	return g
}

// partition reserves about a quarter of every task type's goal pairings
// (object type, destination type) for valid_unseen, so that those pairings
// never occur in train or valid_seen, while keeping at least two thirds of
// each type's pairings for training.
func partition(seed int64, pairs map[string]map[string][]pairKey) map[pairKey]bool {
	types := map[pairKey][]string{}
	total := map[string]int{}
	for typ, byRoom := range pairs {
		seen := map[pairKey]bool{}
		for _, ps := range byRoom {
			for _, p := range ps {
				if !seen[p] {
					seen[p] = true
					types[p] = append(types[p], typ)
					total[typ]++
				}
			}
		}
	}
	all := allPairs()
	r := rand.New(rand.NewPCG(uint64(seed), hash("pairs")))
	r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	unseen := map[pairKey]bool{}
	held := map[string]int{}
	for _, p := range all {
		keep, wanted := true, false
		for _, typ := range types[p] {
			if 3*(total[typ]-held[typ]-1) < 2*total[typ] {
				keep = false
			}
			if 4*held[typ] < total[typ] {
				wanted = true
			}
		}
		if keep && wanted {
			unseen[p] = true
			for _, typ := range types[p] {
				held[typ]++
			}
		}
	}
	return unseen
}

// task draws task i of a type in a split.
func (g *generator) task(split, typ string, i int) (*spec, error) {
	seed := hash(split, typ, fmt.Sprint(i))
	r := rand.New(rand.NewPCG(uint64(g.seed), seed))
	var lays []*layout
	for _, l := range g.layouts[split] {
		if slices.Contains(taskRooms[typ], l.room) {
			lays = append(lays, l)
		}
	}
	wantUnseen := split == envbridge.SplitValidUnseen
	var cands []pairKey
	for attempt := range 200 {
		l := lays[r.IntN(len(lays))]
		cands = cands[:0]
		for _, p := range g.pairs[typ][l.room] {
			if g.unseen[p] != wantUnseen {
				continue
			}
			if typ == hhtext.LookInLight && p.dest != l.lampKind || typ != hhtext.LookInLight && len(l.byKind[p.dest]) == 0 {
				continue
			}
			cands = append(cands, p)
		}
		if len(cands) == 0 {
			continue
		}
		pk := cands[r.IntN(len(cands))]
		key := l.name + "|" + typ + "|" + pk.obj + "|" + pk.dest
		// valid_seen asks for new goals on train's floor plans.
		if split == envbridge.SplitValidSeen && g.trained[key] && attempt < 100 {
			continue
		}
		sp, ok := buildSpec(r, l, typ, pk)
		if !ok {
			continue
		}
		if split == envbridge.SplitTrain {
			g.trained[key] = true
		}
		sp.task = envbridge.Task{
			ID:    fmt.Sprintf("%s-%s-%s-%s-%s-%03d", split, typ, pk.obj, pk.dest, l.name, i),
			Type:  typ,
			Goal:  goalText(sp.goal, sp.template),
			Split: split,
			Seed:  int64(seed & math.MaxInt64),
		}
		sp.first = sp.firstText()
		return sp, nil
	}
	return nil, fmt.Errorf("household: no %s task %d could be drawn for split %s with seed %d", typ, i, split, g.seed)
}

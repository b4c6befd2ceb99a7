package agentgym

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"sync"

	"github.com/samem/trainer/envbridge"
)

// Identity is what a server says one of its task indices is, read from its
// POST /reset answer. Neither AgentGym server lists its tasks, so this is the
// only place the task type and the goal come from.
type Identity struct {
	// Type is the task type: ALFWorld's type of the game path ("task_type":
	// "pick_and_place_simple-Pillow-None-ArmChair-317/trial_..." gives
	// pick_and_place_simple), ScienceWorld's "task_name" ("boil").
	Type string `json:"type"`
	// Goal is the task text: ALFWorld's goal sentence after "Your task is
	// to: ", ScienceWorld's "task_description".
	Goal string `json:"goal"`
	// Game is ALFWorld's game path as the server reports it ("task_type").
	Game string `json:"game,omitempty"`
	// Variation is ScienceWorld's "var_num".
	Variation int `json:"variation"`
}

// alfworldGoalPrefix starts ALFWorld's goal sentence in its first observation.
const alfworldGoalPrefix = "Your task is to: "

// alfworldIdentity reads an ALFWorld /reset answer: the task type is the
// first dash-separated field of the game folder (ALFWorld's six types are
// the folder names' prefixes), the goal the sentence after "Your task is to: ".
func alfworldIdentity(r resetReply) (Identity, error) {
	game := strings.TrimSpace(r.TaskType)
	folder, _, _ := strings.Cut(game, "/")
	typ, _, _ := strings.Cut(folder, "-")
	typ = strings.TrimSpace(typ)
	if typ == "" {
		return Identity{}, fmt.Errorf("%w: no task_type (the game path) in the /reset answer", ErrBadResponse)
	}
	i := strings.Index(r.Observation, alfworldGoalPrefix)
	if i < 0 {
		return Identity{}, fmt.Errorf("%w: no %q sentence in the first observation %s", ErrBadResponse, alfworldGoalPrefix, quote([]byte(r.Observation)))
	}
	goal := r.Observation[i+len(alfworldGoalPrefix):]
	if j := strings.IndexByte(goal, '\n'); j >= 0 {
		goal = goal[:j]
	}
	goal = strings.TrimSpace(goal)
	if goal == "" {
		return Identity{}, fmt.Errorf("%w: empty goal sentence in the first observation", ErrBadResponse)
	}
	return Identity{Type: typ, Goal: goal, Game: game}, nil
}

// sciworldIdentity reads a ScienceWorld /reset answer.
func sciworldIdentity(r resetReply) (Identity, error) {
	name := strings.TrimSpace(r.TaskName)
	if name == "" {
		return Identity{}, fmt.Errorf("%w: no task_name in the /reset answer", ErrBadResponse)
	}
	goal := strings.TrimSpace(r.TaskDescription)
	if goal == "" {
		return Identity{}, fmt.Errorf("%w: no task_description in the /reset answer", ErrBadResponse)
	}
	v := 0
	if r.VarNum != nil {
		v = *r.VarNum
	}
	return Identity{Type: name, Goal: goal, Variation: v}, nil
}

func (s *Suite) identity(r resetReply) (Identity, error) {
	if s.cfg.Kind == ALFWorld {
		return alfworldIdentity(r)
	}
	return sciworldIdentity(r)
}

// sciworldLevel is the difficulty level of each ScienceWorld task type
// (seed 002 Appendix B.1 and Figure 11: one, two or three stars, by the
// average length of a standard agent's trajectories).
var sciworldLevel = map[string]int{
	"boil": 3, "melt": 3, "freeze": 3, "change-the-state-of-matter-of": 3, // 1-1 .. 1-4
	"use-thermometer": 2, "measure-melting-point-known-substance": 2, "measure-melting-point-unknown-substance": 2, // 2-x
	"power-component": 1, "power-component-renewable-vs-nonrenewable-energy": 2, // 3-1, 3-2
	"test-conductivity": 2, "test-conductivity-of-unknown-substances": 2, // 3-3, 3-4
	"find-living-thing": 1, "find-non-living-thing": 1, "find-plant": 1, "find-animal": 1, // 4-x
	"grow-plant": 2, "grow-fruit": 3, // 5-1, 5-2
	"chemistry-mix": 2, "chemistry-mix-paint-secondary-color": 1, "chemistry-mix-paint-tertiary-color": 2, // 6-x
	"lifespan-longest-lived": 1, "lifespan-shortest-lived": 1, "lifespan-longest-lived-then-shortest-lived": 1, // 7-x
	"identify-life-stages-1": 2, "identify-life-stages-2": 1, // 8-x
	"inclined-plane-determine-angle": 3, "inclined-plane-friction-named-surfaces": 3, "inclined-plane-friction-unnamed-surfaces": 3, // 9-x
	"mendelian-genetics-known-plant": 3, "mendelian-genetics-unknown-plant": 3, // 10-x
}

// SciWorldLevel is the difficulty level (1-3) of a ScienceWorld task type,
// 0 for a name outside seed 002 Figure 11.
func SciWorldLevel(taskName string) int { return sciworldLevel[taskName] }

// SciWorldLevelSteps are the step limits per level of seed 002 Appendix
// B.1: Level-1 20, Level-2 20 (as the paper states it), Level-3 40.
var SciWorldLevelSteps = [4]int{0, 20, 20, 40}

// maxSteps is a task's step limit: Config.MaxSteps when the user set one;
// otherwise ALFWorld's 50 and ScienceWorld's limit of the task's level
// (50 for a task type outside the paper's table).
func (s *Suite) maxSteps(id Identity) int {
	if s.cfg.MaxSteps > 0 {
		return s.cfg.MaxSteps
	}
	if s.cfg.Kind == ScienceWorld {
		if l := sciworldLevel[id.Type]; l > 0 {
			return SciWorldLevelSteps[l]
		}
	}
	return DefaultMaxSteps
}

// DefaultMaxSteps is the step limit of an ALFWorld task, AgentGym's and
// the household world's 50 (seed 002 Appendix B.1 gives ScienceWorld's
// limits, not ALFWorld's), used also for a ScienceWorld task whose level is
// unknown.
const DefaultMaxSteps = 50

// Identify learns the type and goal of every configured task index whose
// identity is not already known (Config.Known, Learn), by resetting
// server-side environments to each such index (Config.IdentifyWorkers at
// a time, each on its own environment), and gives the suite's tasks those
// types, goals and step limits. Per-type sampling (seed 002 Sec. 4.1) needs
// it before training. Call it before the suite is shared.
func (s *Suite) Identify(ctx context.Context) error {
	var todo []int
	seen := map[int]bool{}
	for _, sp := range s.splits {
		for _, t := range s.tasks[sp] {
			if idx := s.index[t.ID]; !seen[idx] {
				seen[idx] = true
				if _, ok := s.known[idx]; !ok {
					todo = append(todo, idx)
				}
			}
		}
	}
	found, err := s.probe(ctx, todo)
	if err != nil {
		return err
	}
	maps.Copy(s.known, found)
	for _, sp := range s.splits {
		for i, t := range s.tasks[sp] {
			if id, ok := s.known[s.index[t.ID]]; ok {
				s.tasks[sp][i] = s.describe(t, id)
			}
		}
	}
	return nil
}

// probe resets an environment to each index and reads its identity,
// with up to Config.IdentifyWorkers environments at once.
func (s *Suite) probe(ctx context.Context, todo []int) (map[int]Identity, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	jobs := make(chan int)
	var (
		mu    sync.Mutex
		found = map[int]Identity{}
		wg    sync.WaitGroup
	)
	for range min(s.cfg.IdentifyWorkers, len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			env, err := s.OpenEnv(ctx)
			if err != nil {
				cancel(fmt.Errorf("agentgym identify: %w", err))
				return
			}
			defer env.Close()
			for idx := range jobs {
				r, err := env.reset(ctx, idx)
				if err == nil {
					var id Identity
					if id, err = s.identity(r); err == nil {
						mu.Lock()
						found[idx] = id
						mu.Unlock()
						continue
					}
				}
				cancel(fmt.Errorf("agentgym identify task index %d: %w", idx, err))
				return
			}
		}()
	}
feed:
	for _, idx := range todo {
		select {
		case jobs <- idx:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	return found, nil
}

// describe gives t the identity's type, goal and step limit.
func (s *Suite) describe(t envbridge.Task, id Identity) envbridge.Task {
	t.Type, t.Goal, t.MaxSteps = id.Type, id.Goal, s.maxSteps(id)
	return t
}

// Identities returns the identity of every index learnt so far (by Identify
// or from Config.Known), for a caller to keep and pass back as Config.Known.
func (s *Suite) Identities() map[int]Identity {
	return maps.Clone(s.known)
}

// Learn adds identities learnt earlier (Suite.Identities of another run of
// the same server) and gives the matching tasks their types, goals and step
// limits; Identify then asks the server only about the others. Call it
// before the suite is shared.
func (s *Suite) Learn(known map[int]Identity) {
	listed := map[int]bool{}
	for _, i := range s.index {
		listed[i] = true
	}
	for idx, id := range known {
		if listed[idx] && id.Type != "" {
			s.known[idx] = id
		}
	}
	for _, sp := range s.splits {
		for i, t := range s.tasks[sp] {
			if id, ok := s.known[s.index[t.ID]]; ok {
				s.tasks[sp][i] = s.describe(t, id)
			}
		}
	}
}

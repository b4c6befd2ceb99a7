// Package agent is the runner's view of a memory method: a Method starts
// Episodes, an Episode decides an action from each observation, is told what
// the action did, and is told how the trial ended. Every memory method in this
// project (samem, clin, arigraph, memstream, kgplan, the baselines) implements
// it, so that one runner trains and evaluates all of them on the same tasks.
//
// Optional abilities (saving, forgetting at the end of an iteration, reporting
// memory size) are separate one-method interfaces the runner checks for.
// Package agent/agenttest holds every method to this contract: each method's
// package runs it in one test.
package agent

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/samem/trainer/envbridge"
)

// Mode says how an episode acts and whether it may change the method's
// memory. Each method asks the mode's questions (Learns, Explores,
// Evaluates) rather than comparing modes, so that each rule is stated once.
type Mode int

const (
	// Train: the episode explores and updates memory.
	Train Mode = iota
	// Eval: memory is frozen; the episode only reads it.
	Eval
	// Online: an evaluation episode that keeps learning (seed 002 App.
	// B.1's Jericho protocol, "online evolving"): it acts as in Eval (no
	// exploration, memory read as at evaluation) and updates memory as
	// in Train.
	Online
)

// Learns reports whether the episode updates memory (Train, Online).
func (m Mode) Learns() bool { return m != Eval }

// Explores reports whether the episode may explore (Train only: every
// evaluation is greedy).
func (m Mode) Explores() bool { return m == Train }

// Evaluates reports whether the episode is an evaluation episode (Eval,
// Online): it is scored, plays a held-out task once (or under the
// method's evaluation trials) and reads memory as evaluation does.
func (m Mode) Evaluates() bool { return m != Train }

func (m Mode) String() string {
	switch m {
	case Eval:
		return "eval"
	case Online:
		return "online"
	}
	return "train"
}

// Start is everything a method is told when an episode begins.
type Start struct {
	Task  envbridge.Task
	Mode  Mode
	Style envbridge.Style
	// Rand is this episode's own random source, seeded by the runner from the
	// run seed, the iteration and the task, so that a run is reproducible
	// whatever the number of workers and whatever order episodes finish in.
	Rand *rand.Rand
	// Episode is the index of this episode in the training schedule
	// (iteration*len(tasks) + task index) and Episodes the schedule's total;
	// exploration schedules (seed 002 Eq. 7) are functions of the two.
	// In Eval and Online mode both are 0.
	Episode, Episodes int
	// Iteration is the training iteration (0-based); Trial counts the earlier
	// trials of this same task in this run (CLIN's adaptation, seed 004 Eq. 2).
	Iteration, Trial int
}

// Decision is what an episode does next.
type Decision struct {
	Thought string `json:"thought,omitempty"` // the reasoning behind the action, if any
	Action  string `json:"action"`
	// Guided is true when the decision used retrieved memory (SAMem: an
	// argmax thought; CLIN: memory items), for the reports.
	Guided bool `json:"guided,omitempty"`
	// Recall is what the episode read from its memory to make this
	// decision, for the trajectory records and the run viewer; nil when
	// the method read nothing (or keeps no memory).
	Recall *Recall `json:"recall,omitempty"`
}

// Recall is what one decision read from memory, in a shape every method
// can fill with what it has: the method's view of where the agent is, the
// memory entry that view matched, the memories offered with their scores,
// and the plan in force. It is a record for people, not an input to any
// method: nothing reads it back.
type Recall struct {
	// State is the method's view of the situation (SAMem's summarised
	// state, AutoGuide's context, CDMem's scene).
	State string `json:"state,omitempty"`
	// Match names the memory entry State matched (SAMem: the state
	// cluster's id) and Similarity its cosine similarity; "" when the
	// state matched none.
	Match      string  `json:"match,omitempty"`
	Similarity float64 `json:"similarity,omitempty"`
	// Explored is true when the decision ignored memory on purpose
	// (SAMem's epsilon-greedy exploration).
	Explored bool `json:"explored,omitempty"`
	// Items are the memories offered to the decision, in the order
	// offered.
	Items []RecallItem `json:"items,omitempty"`
	// Plan is the plan in force (AriGraph, the memory stream, L3M+P).
	Plan string `json:"plan,omitempty"`
	// Notes are other lines worth showing (a graph update, a goal).
	Notes []string `json:"notes,omitempty"`
}

// RecallItem is one memory offered to a decision.
type RecallItem struct {
	// ID identifies the memory within the method's saved memory (a thought
	// cluster id, a triplet, an insight's index), so that a viewer can link
	// it to the checkpoint; "" when it has none.
	ID string `json:"id,omitempty"`
	// Kind says what sort of memory it is ("thought", "triplet",
	// "episodic", "insight", "workflow", ...).
	Kind string `json:"kind,omitempty"`
	Text string `json:"text"`
	// Scores are the item's named values as the method ranked it ("q",
	// "visits", "relevance", "recency", "importance", "votes", ...).
	Scores map[string]float64 `json:"scores,omitempty"`
	// Used is true for the item(s) that guided the decision.
	Used bool `json:"used,omitempty"`
}

// Transition is what an action did.
type Transition struct {
	Step     int                  `json:"step"` // 0-based index of the action in the episode
	Decision Decision             `json:"decision"`
	Result   envbridge.StepResult `json:"result"`
}

// Outcome is how a trial ended.
type Outcome struct {
	Won       bool    `json:"won"`
	Lost      bool    `json:"lost"`
	Truncated bool    `json:"truncated"`
	Score     float64 `json:"score"`
	MaxScore  float64 `json:"max_score"`
	Steps     int     `json:"steps"`
	// Err is set when the episode ended because of an error (a dead
	// environment process, an exhausted LLM retry budget); the trial is
	// errored: neither won nor failed, and left out of every rate.
	Err string `json:"error,omitempty"`
}

// Failure tells how a trial that was not won ended, in the words the
// reflection prompts (Reflexion's, MemRL's) give it: lost, out of steps
// or ended, after how many steps, with the score where there is one.
func (o Outcome) Failure() string {
	var why string
	switch {
	case o.Lost:
		why = "the game was lost"
	case o.Truncated:
		why = "the step limit was reached"
	default:
		why = "the episode ended"
	}
	s := fmt.Sprintf("failed: %s after %d steps without completing the task", why, o.Steps)
	if o.MaxScore > 0 {
		s += fmt.Sprintf(" (score %g of %g)", o.Score, o.MaxScore)
	}
	return s + "."
}

// Method is a memory method. Its memory is shared by all of its episodes,
// which may run in parallel: a Method is safe for concurrent use, and guards
// its memory with its own lock.
type Method interface {
	// Name is the method's name on the command line and in reports.
	Name() string
	// Start begins an episode. The first observation follows in Act.
	Start(ctx context.Context, s Start) (Episode, error)
}

// Episode is one trial. It is used by one goroutine at a time.
type Episode interface {
	// Act decides the next action from the latest observation.
	Act(ctx context.Context, obs envbridge.Observation) (Decision, error)
	// Observe is told what the action decided by the last Act did.
	Observe(ctx context.Context, tr Transition) error
	// Finish is told how the trial ended; training methods update memory here
	// or in Observe.
	Finish(ctx context.Context, out Outcome) error
}

// Saver is a method whose memory is saved with every checkpoint. Save writes
// only inside dir (which exists and is empty) and Load reads a directory that
// Save wrote; both must leave the method unchanged on error.
type Saver interface {
	Save(ctx context.Context, dir string) error
	Load(ctx context.Context, dir string) error
}

// IterationEnder is a method that does work between training iterations
// (SAMem's forgetting, CLIN's meta-memory).
type IterationEnder interface {
	EndIteration(ctx context.Context, iteration int) error
}

// Sizer reports the size of a method's memory for reports, by name
// ("states", "thoughts", "entries", "triplets", "abstractions", ...).
type Sizer interface {
	Size() map[string]int
}

// Counter reports what a method has done so far, by name ("checks",
// "prunes", "guided", ...), for progress lines and reports.
type Counter interface {
	Counters() map[string]int
}

// LoadReporter is a method whose Load may skip saved entries it cannot use
// (a reply's decoration saved as memory by an older version): LoadNotes
// says which, one line each, for the command to print.
type LoadReporter interface {
	LoadNotes() []string
}

// EvalTrialer is a method that, at evaluation, may play a held-out task
// more than once: trial k+1 is played only when trial k ended without a
// win and without an error, up to EvalTrials trials (CLIN's G+A, seed 004
// Sec. 5B-5C: "if CLIN does not successfully complete the task ..., it can
// continue learning and retrying that task"). Start.Trial is the trial's
// index (0 first). A method whose EvalTrials is 1 plays each task once.
type EvalTrialer interface {
	EvalTrials() int
}

// Table is one part of a method's memory laid out for people: SAMem's
// states, ExpeL's insights with their votes, AriGraph's triplets. Numbers
// are written as Go formats them (strconv), so a viewer can sort them.
type Table struct {
	// Name says what the rows are ("states", "thoughts", "insights").
	Name    string     `json:"name"`
	Columns []string   `json:"columns"`
	Rows    [][]string `json:"rows"`
}

// Shower is a method whose memory can be shown: cmd/inspect prints its
// tables and the run viewer's memory browser lists them. MemoryTables reads
// the memory under the method's own lock and returns copies.
type Shower interface {
	MemoryTables() []Table
}

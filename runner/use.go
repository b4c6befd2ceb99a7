package runner

// UseSummary is how a method used its memory and the environment over a
// set of episodes: the memory-use metrics of summary.json and the report.
// Errored episodes are left out, as from every rate (Summarize).
type UseSummary struct {
	// Steps are the steps of the completed episodes; GuidedSteps those
	// whose decision memory guided, and GuidedShare their share
	// (GuidedShare).
	Steps       int     `json:"steps"`
	GuidedSteps int     `json:"guided_steps"`
	GuidedShare float64 `json:"guided_share"`
	// InvalidRate is the share of the judged actions (Use.CheckedSteps)
	// that the environment would not carry out; nil where none was judged.
	CheckedSteps   int      `json:"checked_steps"`
	InvalidActions int      `json:"invalid_actions"`
	InvalidRate    *float64 `json:"invalid_action_rate"`
	// ProgressRate is the mean of the episodes' Use.Progress (the
	// household world's subgoals: find, take, process, place);
	// ScoreShare the same for a game with a score (the best score over the
	// maximum); nil where the environment gives neither.
	ProgressRate *float64 `json:"progress_rate"`
	ScoreShare   *float64 `json:"score_share"`
	// Tokens are the episodes' model tokens (Use.Tokens).
	Tokens int64 `json:"tokens"`
}

// GuidedShare is the share of the steps of the completed episodes whose
// decision memory guided (agent.Decision.Guided: SAMem's argmax thought;
// for the other methods a step where what they retrieved from memory was
// not empty), with the steps it is over. An empty memory guides nothing:
// its share is 0. With no step the share is 0. It is the one definition of
// the guided-step share: summaries, reports and flags call it.
func GuidedShare(eps []Episode) (share float64, guided, steps int) {
	for _, e := range eps {
		if e.Outcome.Err != "" {
			continue
		}
		steps += e.Outcome.Steps
		guided += e.Use.GuidedSteps
	}
	if steps == 0 {
		return 0, 0, 0
	}
	return float64(guided) / float64(steps), guided, steps
}

// SummarizeUse computes the memory-use metrics of eps.
func SummarizeUse(eps []Episode) UseSummary {
	var u UseSummary
	u.GuidedShare, u.GuidedSteps, u.Steps = GuidedShare(eps)
	var prog, score float64
	var nProg, nScore int
	for _, e := range eps {
		u.Tokens += e.Use.Tokens
		if e.Outcome.Err != "" {
			continue
		}
		u.CheckedSteps += e.Use.CheckedSteps
		u.InvalidActions += e.Use.InvalidActions
		if p := e.Use.Progress; p != nil {
			switch e.Use.ProgressFrom {
			case ProgressSubgoals:
				prog += *p
				nProg++
			case ProgressScore:
				score += *p
				nScore++
			}
		}
	}
	if u.CheckedSteps > 0 {
		v := float64(u.InvalidActions) / float64(u.CheckedSteps)
		u.InvalidRate = &v
	}
	if nProg > 0 {
		v := prog / float64(nProg)
		u.ProgressRate = &v
	}
	if nScore > 0 {
		v := score / float64(nScore)
		u.ScoreShare = &v
	}
	return u
}

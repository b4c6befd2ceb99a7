package offline

import (
	"regexp"
	"strings"

	"github.com/samem/trainer/clin"
)

// The free-form-advice ablation (seed 004 Sec. 5 question E, Fig. 13,
// Table 3): the memory generator is asked for hints in its own words
// instead of causal abstractions. With a model the prompts are
// adapt.tmpl / meta.tmpl / gentask.tmpl with .Advice set and the replies
// are read by ParseAdvice. Offline, adviseAdapt and the advice branch of
// scorePhrases stand in: the hints name what helped and what wasted
// steps, but not what each action is necessary *to*, so the structure the
// ablation removes (which milestone an action enables, in which order) is
// absent from the memory and the controller cannot use it.

// adviceAgainst finds the wording of a hint that warns against something.
var adviceAgainst = regexp.MustCompile(`(?i)\b(?:avoid|don't|do not|never|stop|wasted?|unnecessary|useless|pointless)\b`)

// adviseHelped and adviseWasted are the offline generator's wording of a
// hint (this project's rule, not the paper's).
func adviseHelped(x string) string {
	return "Try " + x + " again when it applies: it moved an earlier attempt forward."
}

func adviseWasted(x string) string {
	return "Avoid " + x + " over and over: it wasted steps in an earlier attempt."
}

// mentions reports whether the hint names the phrase p (normalised), as
// whole words.
func mentions(hint, p string) bool {
	if p == "" {
		return false
	}
	h := strings.NewReplacer(":", " ", ",", " ", ";", " ", ".", " ", "!", " ").Replace(strings.ToLower(hint))
	return strings.Contains(" "+strings.Join(strings.Fields(h), " ")+" ", " "+p+" ")
}

// adviseAdapt is the offline generator's free-form advice after a trial:
// the phrases the trial's evidence names (extract), each as a hint of its
// own, and the hints of the last memory that this trial did not repeat,
// kept while they are at most two trials old or came from a rewarded
// trial (the memory "does not grow monotonically", Sec. 3.2).
func adviseAdapt(in clin.AdaptInput) []clin.Abstraction {
	items, _ := extract(in.Task.Goal, in.Trace, in.Won)
	var out []clin.Abstraction
	seen := map[string]bool{}
	add := func(a clin.Abstraction) {
		k := clin.NormPhrase(a.X)
		if seen[k] {
			return
		}
		seen[k] = true
		out = append(out, a)
	}
	for _, it := range items {
		text := adviseHelped(it.X)
		if it.Kind == clin.NotContribute {
			text = adviseWasted(it.X)
		}
		add(clin.Abstraction{Kind: clin.Advice, X: text, Trial: in.Trial, Reward: in.Reward})
	}
	if n := len(in.Previous); n > 0 {
		for _, it := range in.Previous[n-1].Items {
			if it.Kind == clin.Advice && (it.Reward > 0 || it.Trial >= in.Trial-2) {
				add(it)
			}
		}
	}
	return out
}

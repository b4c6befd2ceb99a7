package agent

import "testing"

// Each mode answers the three questions the methods ask: training explores
// and learns; a frozen evaluation does neither; an online evaluation is an
// evaluation that learns without exploring.
func TestModeQuestions(t *testing.T) {
	for _, c := range []struct {
		mode                        Mode
		name                        string
		learns, explores, evaluates bool
	}{
		{Train, "train", true, true, false},
		{Eval, "eval", false, false, true},
		{Online, "online", true, false, true},
	} {
		if got := c.mode.String(); got != c.name {
			t.Errorf("mode %d: String %q, want %q", c.mode, got, c.name)
		}
		if c.mode.Learns() != c.learns || c.mode.Explores() != c.explores || c.mode.Evaluates() != c.evaluates {
			t.Errorf("%s: learns %v, explores %v, evaluates %v; want %v, %v, %v", c.name,
				c.mode.Learns(), c.mode.Explores(), c.mode.Evaluates(), c.learns, c.explores, c.evaluates)
		}
	}
}

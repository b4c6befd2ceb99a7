package offline

import (
	"context"
	"strings"
	"testing"

	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/summarize"
)

// TestBracketedText: a game that words a whole answer in brackets (9:05's
// "[!: Verb error. ...]") still gives a state; only text with no words at
// all gives ErrEmptySummary.
func TestBracketedText(t *testing.T) {
	s := textSession{}
	got, err := s.Summarize(context.Background(), "help", envbridge.Observation{Text: "[!: Verb error. (This generally means that the first word of your command was not recognized.)]"})
	if err != nil || !strings.Contains(got, "Verb error") {
		t.Fatalf("Summarize = %q, %v", got, err)
	}
	if _, err := s.Summarize(context.Background(), "x", envbridge.Observation{Text: " [] > "}); err != summarize.ErrEmptySummary {
		t.Fatalf("Summarize of no words = %v, want ErrEmptySummary", err)
	}
}

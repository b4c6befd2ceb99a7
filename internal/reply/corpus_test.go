package reply_test

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/samem/trainer/ariadne"
	"github.com/samem/trainer/arigraph"
	"github.com/samem/trainer/baseline"
	"github.com/samem/trainer/clin"
	"github.com/samem/trainer/forget"
	"github.com/samem/trainer/internal/reply"
	"github.com/samem/trainer/memstream"
	"github.com/samem/trainer/summarize"
	"github.com/samem/trainer/thought"
)

// parsers maps each role of testdata/corpus.json to its own parser, giving
// the part of the reply the role uses.
var parsers = map[string]func(string) (string, error){
	"summarize": summarize.ParseReply,
	"think": func(s string) (string, error) {
		_, a, err := thought.ParseReply(s)
		return a, err
	},
	"check": func(s string) (string, error) {
		v, err := forget.ParseVerdict(s)
		return fmt.Sprint(v), err
	},
	"clin.controller": func(s string) (string, error) {
		r, ok := clin.ParseReply(s)
		return r.Action, okErr(ok)
	},
	"arigraph.explore": func(s string) (string, error) {
		v, ok := arigraph.ParseBool(s)
		return fmt.Sprint(v), okErr(ok)
	},
	"arigraph.decide": func(s string) (string, error) {
		_, a, ok := ariadne.ParseDecision(s)
		return a, okErr(ok)
	},
	"memstream.insights": func(s string) (string, error) {
		ins := memstream.ParseInsights(s, 3)
		if len(ins) != 1 {
			return fmt.Sprint(ins), fmt.Errorf("%d insights, want 1", len(ins))
		}
		return ins[0].Text, nil
	},
	"reflexion.reflect": baseline.ParseReflection,
}

func okErr(ok bool) error {
	if !ok {
		return fmt.Errorf("not parsed")
	}
	return nil
}

// readCorpus reads testdata/corpus.json: per role, replies and the part the
// role's parser must read from each.
func readCorpus(t *testing.T) map[string][]struct{ Reply, Want string } {
	t.Helper()
	b, err := os.ReadFile("testdata/corpus.json")
	if err != nil {
		t.Fatal(err)
	}
	var corpus map[string][]struct{ Reply, Want string }
	if err := json.Unmarshal(b, &corpus); err != nil {
		t.Fatal(err)
	}
	return corpus
}

// TestCorpus: the reply shapes real chat models produce,
// per role, as golden inputs: every one is read as its plain form is.
func TestCorpus(t *testing.T) {
	for role, cases := range readCorpus(t) {
		parse := parsers[role]
		if parse == nil {
			t.Errorf("role %s has no parser in this test", role)
			continue
		}
		for _, c := range cases {
			got, err := parse(c.Reply)
			if err != nil || got != c.Want {
				t.Errorf("%s: %q -> %q, %v; want %q", role, c.Reply, got, err, c.Want)
			}
		}
	}
}

// TestCorpusWithReasoning: every reply of the corpus, wrapped in the
// reasoning shapes of reasoning models' content (a think block, only its
// closing tag, harmony's channels) around reasoning that itself looks like
// an answer, is read as its plain form is once the reasoning is out.
func TestCorpusWithReasoning(t *testing.T) {
	corpus := readCorpus(t)
	const poison = "Thought: poison\nAction: poison\nis_valid: False\nSummary: poison\nReflection: poison\n9"
	shapes := []func(string) string{
		func(r string) string { return "<think>\n" + poison + "\n</think>\n\n" + r },
		func(r string) string { return poison + "\n</think>\n\n" + r },
		func(r string) string {
			return "<|channel|>analysis<|message|>" + poison + "<|end|><|start|>assistant<|channel|>final<|message|>" + r + "<|return|>"
		},
	}
	for role, cases := range corpus {
		parse := parsers[role]
		for _, c := range cases {
			for i, shape := range shapes {
				answer, _, found := reply.Strip(shape(c.Reply))
				got, err := parse(answer)
				if !found || err != nil || got != c.Want {
					t.Errorf("%s, shape %d: %q -> %q, %v; want %q", role, i, c.Reply, got, err, c.Want)
				}
			}
		}
	}
}

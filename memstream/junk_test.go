package memstream

import (
	"context"
	"strings"
	"testing"

	"github.com/samem/trainer/llm/offline"
)

// TestLoadSkipsJunk: a checkpoint that holds memories
// made of a reply's decoration (saved by an earlier version: a fence line, a
// chat preamble, an empty text) loads, reports each and skips it; the
// stream then retrieves without error.
func TestLoadSkipsJunk(t *testing.T) {
	ctx := context.Background()
	emb := offline.New(64)
	m, _ := New(Config{}, Deps{Embed: emb, Offline: stubOffline{}})
	m.s.Add(KindObservation, "You see a key.", "t1", 0, 5, nil)
	m.s.Add(KindReflection, "```", "t1", 1, 7, nil)
	m.s.Add(KindReflection, "Sure! Here are my insights:", "t1", 2, 7, nil)
	m.s.Add(KindReflection, "", "t1", 2, 7, nil)
	m.s.Add(KindReflection, "keys open lockers", "t1", 3, 7, []int{0})
	dir := t.TempDir()
	if err := m.Save(ctx, dir); err != nil {
		t.Fatal(err)
	}
	m2, _ := New(Config{}, Deps{Embed: emb, Offline: stubOffline{}})
	if err := m2.Load(ctx, dir); err != nil {
		t.Fatalf("Load: %v", err)
	}
	var texts []string
	for _, mem := range m2.s.Memories() {
		texts = append(texts, mem.Text)
	}
	if strings.Join(texts, "|") != "You see a key.|keys open lockers" {
		t.Errorf("loaded memories %q, want the two with content", texts)
	}
	notes := m2.LoadNotes()
	if len(notes) != 3 || !strings.Contains(notes[0], "skipped memory 1") {
		t.Errorf("notes = %q, want 3 naming the skipped memories", notes)
	}
	if _, err := m2.s.Retrieve(ctx, emb, "a key", 5, 3, DefaultDecay, Weights{1, 1, 1}, nil); err != nil {
		t.Errorf("retrieval after load: %v", err)
	}
}

// TestParseInsightsDropsDecoration: the reflection parser never makes a
// memory of a fence, a preamble or a closing remark.
func TestParseInsightsDropsDecoration(t *testing.T) {
	reply := "Sure! Here are my insights:\n```text\n1. Keys open lockers (because of 1, 2)\n2. **The kitchen is north.**\n```\nLet me know if you need more."
	got := ParseInsights(reply, 3)
	if len(got) != 2 || got[0].Text != "Keys open lockers" || len(got[0].Evidence) != 2 || got[1].Text != "The kitchen is north" {
		t.Errorf("ParseInsights = %+v", got)
	}
	qs := ParseQuestions("Here are three questions:\n```\n1. Where is the key?\n```", 3)
	if len(qs) != 1 || qs[0] != "Where is the key?" {
		t.Errorf("ParseQuestions = %q", qs)
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/samem/trainer/internal/testenv"
)

// jerichoDir is ../shared/games/jericho (or $ZMACHINE_GAMES/jericho).
func jerichoDir(t *testing.T) string {
	t.Helper()
	d := filepath.Join("..", "..", "..", "shared", "games")
	if e := os.Getenv("ZMACHINE_GAMES"); e != "" {
		d = e
	}
	d = filepath.Join(d, "jericho")
	_, err := os.Stat(filepath.Join(d, "suite.json"))
	testenv.Need(t, err == nil, fmt.Sprintf("the shared games: %s/suite.json (set ZMACHINE_GAMES to a copy of ../shared/games)", d))
	return d
}

// smallSet makes a folder of two of the suite's games with their entries
// of suite.json, and a third game whose walkthrough is cut short.
func smallSet(t *testing.T) string {
	t.Helper()
	src := jerichoDir(t)
	b, err := os.ReadFile(filepath.Join(src, "suite.json"))
	if err != nil {
		t.Fatal(err)
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sub := map[string]json.RawMessage{}
	for _, f := range []string{"905.z5", "detective.z5", "pentari.z5"} {
		story, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), story, 0o644); err != nil {
			t.Fatal(err)
		}
		sub[f] = all[f]
	}
	// pentari's walkthrough without its last ten commands: not won
	var p struct {
		Seed          int64    `json:"seed"`
		Walkthrough   []string `json:"walkthrough"`
		MaxWordLength int      `json:"max_word_length"`
		Grammar       string   `json:"grammar"`
	}
	if err := json.Unmarshal(sub["pentari.z5"], &p); err != nil {
		t.Fatal(err)
	}
	p.Walkthrough = p.Walkthrough[:len(p.Walkthrough)-10]
	sub["pentari.z5"], _ = json.Marshal(p)
	out, _ := json.Marshal(sub)
	if err := os.WriteFile(filepath.Join(dir, "suite.json"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestReport: zcheck replays each walkthrough, says won where it is won and
// how far a cut walkthrough got, counts the steps checked against the
// game's own score, and exits 1 because one game is not won; with -valid it
// adds the recall and the time per step.
func TestReport(t *testing.T) {
	dir := smallSet(t)
	var out, errb bytes.Buffer
	code, err := run(context.Background(), []string{"-games", dir, "-parallel", "1"}, &out, &errb)
	if err != nil || code != 1 {
		t.Fatalf("exit %d, %v; stderr %s", code, err, errb.String())
	}
	lines := strings.Split(out.String(), "\n")
	find := func(game string) []string {
		for _, l := range lines {
			if f := strings.Fields(l); len(f) > 0 && f[0] == game {
				return f
			}
		}
		t.Fatalf("no line for %s in\n%s", game, out.String())
		return nil
	}
	if f := find("detective"); f[1] != "51/51" || f[2] != "won" || f[3] != "360" || f[4] != "360" || f[7] != "0" {
		t.Errorf("detective: %q", f)
	}
	if f := find("905"); f[2] != "won" || f[3] != "1" {
		t.Errorf("905: %q", f)
	}
	if f := find("pentari"); f[2] == "won" || f[1] != "39/39" {
		t.Errorf("pentari, cut short: %q", f)
	}
	out.Reset()
	code, err = run(context.Background(), []string{"-games", dir, "-only", "detective", "-valid", "-valid-every", "5", "-parallel", "1"}, &out, &errb)
	if err != nil || code != 0 || !strings.Contains(out.String(), "valid actions: 11 steps") || !strings.Contains(out.String(), "tree-changing steps") {
		t.Fatalf("-valid: exit %d, %v:\n%s", code, err, out.String())
	}
}

// TestBadFlags: a missing or bad flag is refused with exit status 2.
func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"-games", "/nonexistent"},
		{"-games", ".", "-parallel", "0"},
		{"-games", ".", "extra"},
	} {
		var out, errb bytes.Buffer
		code, err := run(context.Background(), args, &out, &errb)
		if code != 2 || err == nil {
			t.Errorf("%q: exit %d, %v", args, code, err)
		}
	}
}

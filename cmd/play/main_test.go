package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/samem/trainer/internal/testenv"
)

func sharedGames(t *testing.T) string {
	t.Helper()
	d := filepath.Join("..", "..", "..", "shared", "games")
	if e := os.Getenv("ZMACHINE_GAMES"); e != "" {
		d = e
	}
	_, err := os.Stat(filepath.Join(d, "jericho", "walkthroughs.json"))
	testenv.Need(t, err == nil, fmt.Sprintf("the shared games: %s (set ZMACHINE_GAMES to a copy of ../shared/games)", d))
	return d
}

func readRecords(t *testing.T, out []byte) []stepRecord {
	t.Helper()
	var recs []stepRecord
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		var r stepRecord
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		recs = append(recs, r)
	}
	return recs
}

// TestWalkthroughs replays every walkthrough of ../shared/games with
// -commands and -json: the last step is done and won, at the walkthrough's
// score.
func TestWalkthroughs(t *testing.T) {
	dir := sharedGames(t)
	type game struct {
		file  string
		walk  []string
		score float64
	}
	var games []game
	b, err := os.ReadFile(filepath.Join(dir, "jericho", "walkthroughs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var jw map[string]struct {
		Walkthrough []string `json:"walkthrough"`
	}
	if err := json.Unmarshal(b, &jw); err != nil {
		t.Fatal(err)
	}
	reach := map[string]float64{"zork1.z5": 350, "905.z5": 1, "acorncourt.z5": 30, "balances.z5": 50,
		"detective.z5": 360, "loose.z5": 50, "pentari.z5": 70}
	for f, w := range jw {
		games = append(games, game{filepath.Join(dir, "jericho", f), w.Walkthrough, reach[f]})
	}
	for _, name := range []string{"cook", "cook_1_1_cut", "cook_1_9"} {
		b, err := os.ReadFile(filepath.Join(dir, "arigraph", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var d struct {
			Metadata struct {
				MaxScore    float64  `json:"max_score"`
				Walkthrough []string `json:"walkthrough"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatal(err)
		}
		games = append(games, game{filepath.Join(dir, "arigraph", name+".z8"), d.Metadata.Walkthrough, d.Metadata.MaxScore})
	}
	sort.Slice(games, func(i, j int) bool { return games[i].file < games[j].file })
	for _, g := range games {
		t.Run(filepath.Base(g.file), func(t *testing.T) {
			cmds := filepath.Join(t.TempDir(), "walk.txt")
			if err := os.WriteFile(cmds, []byte("# walkthrough\n"+strings.Join(g.walk, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			code := run(context.Background(), []string{"-env", "zmachine", "-game", g.file, "-max-steps", "1000",
				"-commands", cmds, "-json"}, strings.NewReader(""), &out, &errb)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			recs := readRecords(t, out.Bytes())
			last := recs[len(recs)-1]
			if !last.Done || !last.Won || last.Lost || last.Score != g.score {
				t.Fatalf("last step %d: done %v won %v lost %v score %v of %v, want won at %v; stderr %s",
					last.Step, last.Done, last.Won, last.Lost, last.Score, last.MaxScore, g.score, errb.String())
			}
			if recs[0].Step != 0 || recs[0].Observation == "" || last.Moves == nil {
				t.Fatalf("opening %+v, last moves %v", recs[0], last.Moves)
			}
			// loose's walkthrough holds one command that answered a key wait
			// when it was recorded; play presses that key by itself.
			if len(recs)-1 < len(g.walk)-1 {
				t.Fatalf("ended after %d of %d commands", len(recs)-1, len(g.walk))
			}
		})
	}
}

// TestHouseholdAndValidActions: the built-in household world through the
// same command, with its admissible list; a Jericho game with
// -valid-actions gets one too.
func TestHouseholdAndValidActions(t *testing.T) {
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"-env", "household", "-json", "-commands", "-"},
		strings.NewReader("look\ninventory\n"), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	recs := readRecords(t, out.Bytes())
	if len(recs) != 3 || recs[1].Action != "look" || len(recs[0].Admissible) == 0 {
		t.Fatalf("household records: %+v", recs)
	}
	dir := sharedGames(t)
	out.Reset()
	code = run(context.Background(), []string{"-env", "zmachine", "-game", filepath.Join(dir, "jericho", "zork1.z5"),
		"-valid-actions", "-json", "-commands", "-"}, strings.NewReader("open mailbox\n"), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	recs = readRecords(t, out.Bytes())
	if !contains(recs[0].Admissible, "open mailbox") || !contains(recs[1].Admissible, "take leaflet") {
		t.Fatalf("valid actions: opening %v, after open mailbox %v", recs[0].Admissible, recs[1].Admissible)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// TestBadInput: bad flags and files are refused with exit code 2 and a
// message naming the flag.
func TestBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-env", "nope"}, "-env"},
		{[]string{"-env", "zmachine"}, "-game"},
		{[]string{"-env", "zmachine", "-game", "/nonexistent.z5"}, "-game"},
		{[]string{"-env", "household", "-commands", "/nonexistent.txt"}, "-commands"},
		{[]string{"-env", "household", "-task", "nope"}, "-task"},
		{[]string{"-env", "household", "-split", "nope"}, "-split"},
		{[]string{"-env", "zmachine", "-game", ".", "-interpreter", "nope"}, "-interpreter"},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), tc.args, strings.NewReader(""), &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming %s", tc.args, code, errb.String(), tc.want)
		}
	}
}

// TestInteractive: without -commands, play prompts and reads actions from
// its input until the input ends, printing the score after each step.
func TestInteractive(t *testing.T) {
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"-env", "household"}, strings.NewReader("look\n"), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	s := out.String()
	if !strings.HasPrefix(s, "task ") || strings.Count(s, "> ") < 2 || !strings.Contains(s, "[score 0 of 1, reward 0]") {
		t.Fatalf("interactive output:\n%s", s)
	}
}

// TestWalkthroughFlag: -walkthrough plays the task's own walkthrough from
// suite.json, every command (zork1's 396, past the default limit of 100),
// and step 0 reports the opening's score and the maximum (detective scores
// 10 before the first command); -max-steps still cuts it.
func TestWalkthroughFlag(t *testing.T) {
	dir := filepath.Join(sharedGames(t), "jericho")
	_, err := os.Stat(filepath.Join(dir, "suite.json"))
	testenv.Need(t, err == nil, fmt.Sprintf("%s/suite.json (Jericho's walkthroughs)", dir))
	for _, c := range []struct {
		game  string
		args  []string
		steps int
		won   bool
		open  [2]float64 // step 0's score and maximum
	}{
		{"zork1.z5", nil, 396, true, [2]float64{0, 350}},
		{"detective.z5", nil, 51, true, [2]float64{10, 360}},
		{"zork1.z5", []string{"-max-steps", "30"}, 30, false, [2]float64{0, 350}},
	} {
		var out, errb bytes.Buffer
		args := append([]string{"-env", "zmachine", "-game", filepath.Join(dir, c.game), "-walkthrough", "-json"}, c.args...)
		if code := run(context.Background(), args, strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		recs := readRecords(t, out.Bytes())
		last := recs[len(recs)-1]
		if last.Step != c.steps || last.Won != c.won || !last.Done || last.Truncated == c.won {
			t.Errorf("%v: last step %d won %v done %v truncated %v, want step %d won %v", args, last.Step, last.Won, last.Done, last.Truncated, c.steps, c.won)
		}
		if recs[0].Score != c.open[0] || recs[0].MaxScore != c.open[1] {
			t.Errorf("%v: step 0 score %v of %v, want %v of %v", args, recs[0].Score, recs[0].MaxScore, c.open[0], c.open[1])
		}
	}
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"-env", "zmachine", "-game", filepath.Join(dir, "zork1.z5"), "-walkthrough", "-commands", "-"},
		strings.NewReader(""), &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "-walkthrough") {
		t.Errorf("-walkthrough with -commands: exit %d, %q", code, errb.String())
	}
	code = run(context.Background(), []string{"-env", "household", "-walkthrough"}, strings.NewReader(""), &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "walkthrough") {
		t.Errorf("-walkthrough on household: exit %d, %q", code, errb.String())
	}
}

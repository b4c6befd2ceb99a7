package zvm

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/samem/trainer/internal/testenv"
)

// sharedDir finds ../shared beside the module root (tests skip, or fail in
// CI, without it).
func sharedDir(t testing.TB, sub string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no module root above the test's directory")
		}
		dir = parent
	}
	d := filepath.Join(dir, "..", "shared", sub)
	_, err = os.Stat(d)
	testenv.Need(t, err == nil, fmt.Sprintf("the shared folder %s (beside the checkout)", d))
	return d
}

func readStory(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// inform6 compiles src for version v into dir and returns the story file.
func inform6(t testing.TB, src string, v int, dir string) []byte {
	t.Helper()
	bin, err := exec.LookPath("inform6")
	testenv.Need(t, err == nil, "inform6 (apt-get install inform6-compiler)")
	out := filepath.Join(dir, fmt.Sprintf("%s.z%d", strings.TrimSuffix(filepath.Base(src), ".inf"), v))
	cmd := exec.Command(bin, fmt.Sprintf("-v%d", v), src, out)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("inform6 -v%d %s: %v\n%s", v, src, err, b)
	}
	return readStory(t, out)
}

func dfrotzPath(t testing.TB) string {
	t.Helper()
	for _, p := range []string{"/usr/games/dfrotz", "dfrotz"} {
		if q, err := exec.LookPath(p); err == nil {
			return q
		}
	}
	testenv.Need(t, false, "dfrotz (apt-get install frotz)")
	return ""
}

// dfrotz runs story through dfrotz -m -p -q -s seed with the given input.
func dfrotz(t testing.TB, storyPath string, seed int64, input string) string {
	t.Helper()
	cmd := exec.Command(dfrotzPath(t), "-m", "-p", "-q", "-s", fmt.Sprint(seed), storyPath)
	cmd.Stdin = strings.NewReader(input)
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("dfrotz %s: %v", storyPath, err)
	}
	return string(b)
}

// play runs m to completion on the given script, as dfrotz reads a piped
// script: a line wait takes the next line, a key wait takes the next line
// too and answers with its first character (return for an empty line). It
// returns the whole transcript of Main and fails on any error; it stops
// when the script runs out.
func play(t testing.TB, m *Machine, lines []string) (string, Wait) {
	t.Helper()
	var sb strings.Builder
	for {
		w, err := m.Run()
		sb.WriteString(m.Output().Main)
		if err != nil {
			t.Fatalf("Run: %v\ntranscript tail: %s", err, tail(sb.String()))
		}
		if w == Halted || len(lines) == 0 {
			return sb.String(), w
		}
		line := lines[0]
		lines = lines[1:]
		if w == WaitKey {
			k := uint16(13)
			if line != "" {
				k = uint16(line[0])
			}
			err = m.Key(k)
		} else {
			err = m.Input(line)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func tail(s string) string {
	if len(s) > 600 {
		return "..." + s[len(s)-600:]
	}
	return s
}

type jerichoGame struct {
	Seed        int64    `json:"seed"`
	Walkthrough []string `json:"walkthrough"`
}

func jerichoGames(t testing.TB) (string, map[string]jerichoGame) {
	dir := filepath.Join(sharedDir(t, "games"), "jericho")
	var g map[string]jerichoGame
	if err := json.Unmarshal(readStory(t, filepath.Join(dir, "walkthroughs.json")), &g); err != nil {
		t.Fatalf("walkthroughs.json: %v", err)
	}
	return dir, g
}

// cookingWalkthrough reads a TextWorld game's walkthrough and max score.
func cookingWalkthrough(t testing.TB, jsonPath string) ([]string, int) {
	var d struct {
		Metadata struct {
			Walkthrough []string `json:"walkthrough"`
			MaxScore    int      `json:"max_score"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(readStory(t, jsonPath), &d); err != nil {
		t.Fatalf("%s: %v", jsonPath, err)
	}
	return d.Metadata.Walkthrough, d.Metadata.MaxScore
}

var dfrotzWarning = regexp.MustCompile(`Warning: @[^()]*\([^()]*\)\s*\(will\s+ignore\s+further\s+occurrences\)`)

// words normalises a transcript for the differential test: dfrotz wraps
// lines at 80 columns and prints its prompt as ">", so the texts are
// compared as sequences of words, without ">" prompts and without dfrotz's
// own warnings.
func words(s string) []string {
	s = dfrotzWarning.ReplaceAllString(s, " ")
	var out []string
	join := false // the last word ended in a hyphen: dfrotz may break the line there
	for _, w := range strings.Fields(s) {
		w = strings.TrimLeft(w, ">")
		if w == "" {
			continue
		}
		if join {
			out[len(out)-1] += w
		} else {
			out = append(out, w)
		}
		join = strings.HasSuffix(w, "-")
	}
	return out
}

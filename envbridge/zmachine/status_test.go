package zmachine

import (
	"regexp"
	"strings"
	"testing"
)

func TestParseStatus(t *testing.T) {
	custom := regexp.MustCompile(`Gold: (?P<score>\d+)\s+Day (?P<moves>\d+)`)
	tests := []struct {
		lines []string
		re    *regexp.Regexp
		want  Status
	}{
		{[]string{" West of House                      Score: 0  Moves: 1"}, nil, Status{0, 1, true, true}},
		{[]string{" Hall                Score: -10     Turns: 25"}, nil, Status{-10, 25, true, true}},
		{[]string{" -= Room A =-                                        0/1"}, nil, Status{0, 1, true, true}},
		{[]string{" Outside the Bungalow      Score: 2", "      W * E  In     Moves: 12", "  SW S SE"}, nil, Status{2, 12, true, true}},
		{[]string{" Kitchen"}, nil, Status{}},
		{nil, nil, Status{}},
		{[]string{" Camp     Gold: 40   Day 3"}, custom, Status{40, 3, true, true}},
		{[]string{" Camp     Score: 4"}, custom, Status{4, 0, true, false}},
		{[]string{" 1/2/3 Street"}, nil, Status{}},
	}
	for _, tt := range tests {
		if got := ParseStatus(tt.lines, tt.re); got != tt.want {
			t.Errorf("ParseStatus(%q) = %+v, want %+v", tt.lines, got, tt.want)
		}
	}
}

func TestParseWording(t *testing.T) {
	re := regexp.MustCompile(`You have (?P<score>\d+) gold\s+marks`)
	if v, ok := ParseWording(re, "Taken. You have 7 gold\nmarks.\nLater: You have 12 gold marks."); !ok || v != 12 {
		t.Errorf("ParseWording = %v, %v; want the last, 12", v, ok)
	}
	if _, ok := ParseWording(re, "You have no gold."); ok {
		t.Errorf("ParseWording found a score in text without one")
	}
	if _, ok := ParseWording(nil, "You have 7 gold marks"); ok {
		t.Errorf("ParseWording(nil) found a score")
	}
}

func TestParseBindings(t *testing.T) {
	if len(builtinBindings) < 8 {
		t.Fatalf("%d built-in bindings, want the 7 Jericho games and TextWorld", len(builtinBindings))
	}
	bad := map[string]string{
		`{"games": [{"name": "x"}]}`: "neither key nor match",
		`{"games": [{"name": "x", "key": "1/2/3", "score": {"source": "ram"}}]}`:                          "unknown score source",
		`{"games": [{"name": "x", "key": "1/2/3", "score": {"source": "global", "global": 240}}]}`:        "0..239",
		`{"games": [{"name": "x", "key": "1/2/3", "score": {"source": "wording"}}]}`:                      "needs a pattern",
		`{"games": [{"name": "x", "key": "1/2/3", "score": {"source": "wording", "pattern": "("}}]}`:      "score pattern",
		`{"games": [{"name": "x", "key": "1/2/3", "score": {"source": "wording", "pattern": "(\\d+)"}}]}`: "no (?P<score>",
		`{"games": [{"name": "x", "match": "glulx"}]}`:                                                    "only textworld",
		`{"games": [{"name": "x", "key": "1/2/3", "max_score": -1}]}`:                                     "negative",
		`{"games": [null]}`: "null",
		`{"games": `:        "bindings",
	}
	for in, want := range bad {
		if _, err := ParseBindings([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseBindings(%s) = %v, want an error naming %q", in, err, want)
		}
	}
}

// FuzzStatus feeds arbitrary status lines and game text to the status-line
// and score-wording parsers: none may panic.
func FuzzStatus(f *testing.F) {
	f.Add(" West of House          Score: 0  Moves: 1", "You have 7 gold marks.")
	f.Add(" -= Room A =-   0/1", "")
	f.Add("Score: -99999999999 Turns: 99999999999", "You have 99999999999999999999 gold marks")
	re := regexp.MustCompile(`You have (?P<score>\d+) gold marks`)
	st := regexp.MustCompile(`Gold: (?P<score>\S+)`)
	f.Fuzz(func(t *testing.T, line, text string) {
		ParseStatus(strings.Split(line, "\n"), nil)
		ParseStatus(strings.Split(line, "\n"), st)
		ParseWording(re, text)
		ParseScore(text)
	})
}

// FuzzBindings feeds arbitrary JSON to the bindings parser: an error or a
// checked table, never a panic.
func FuzzBindings(f *testing.F) {
	f.Add(string(bindingsJSON))
	f.Add(`{"games": [{"name": "x", "key": "1/2/3", "score": {"source": "wording", "pattern": "(?P<score>\\d+)"}}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		bs, err := ParseBindings([]byte(in))
		if err != nil {
			return
		}
		for _, b := range bs {
			if b.Score.Pattern != "" && b.Score.re == nil {
				t.Fatalf("binding %q: pattern not compiled", b.Name)
			}
		}
	})
}

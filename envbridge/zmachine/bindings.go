package zmachine

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Bindings are the per-game data table of the in-process driver
// (bindings.json, embedded): what the machine and the general rules (see
// the package doc) do not say about a game. A game is matched by the
// release, serial and checksum of its header ("88/840726/a129" is zork1
// release 88); TextWorld games, which are many and alike, by their banner.
// A game without a binding gets defaultBinding and the general rules only.
// The table holds every story file of ../shared/games/jericho, with
// Jericho's published facts where a rule cannot find them (seeds, intro
// commands, victory texts, the maximum of a game without a score, the
// player object where watching it move misleads).
//
// Fields:
//
//	seed       the random seed the game is played with (Jericho's; the suite's
//	           walkthroughs are recorded at it). Config.ForceSeed overrides it.
//	intro      commands sent once after the opening, their output dropped
//	           (default "verbose", so that re-entered rooms are described in
//	           full; Jericho's intros where a game needs them: hollywood's
//	           statue, seastalker's name; hollywood and seastalker without
//	           "verbose", which changes their story).
//	score      where the score is read, when the general rules cannot tell:
//	             v3      version 3's status-line globals (score, moves);
//	             global  a global variable (Inform's sline1 is global 1);
//	             status  the status line the game draws ("Score: 5", "5/12");
//	             wording a regexp with a (?P<score>...) group over the game's text;
//	             ask     the game's answer to the score command, after every
//	                     turn on the machine and undone, read with the
//	                     pattern when one is given (afflicted's "sanitation
//	                     rating of -30");
//	             ending  no score but the ending: max_score when won, else 0;
//	             none    no score.
//	moves_global  the global that counts moves.
//	max_score  the best possible score where the game names none (0: read
//	           from the game's own report).
//	verbs      the one-object verbs valid actions try (default: the game's
//	           grammar, else a general list); TextWorld games take a handful.
//	win, death texts whose presence in the final text decides won or lost,
//	           beside the standard banners ("*** You have won ***").
//	deaths_go_on  a death ends the episode only with the final question
//	           (the game goes on after its deaths: inhumane scores them).
//	player     the player object, where watching which object moves
//	           misleads (a maze whose exits lead back, a following hound).
//	question_mark  "space": a typed "?" is read as a space, as Infocom's
//	           interpreters did for these games (and Frotz does).
type Binding struct {
	Name        string      `json:"name"`
	Key         string      `json:"key,omitempty"`
	Match       string      `json:"match,omitempty"`
	Seed        *int64      `json:"seed,omitempty"`
	Intro       []string    `json:"intro,omitempty"`
	Score       ScoreSource `json:"score"`
	MovesGlobal int         `json:"moves_global,omitempty"`
	MaxScore    float64     `json:"max_score,omitempty"`
	Verbs       []string    `json:"verbs,omitempty"`
	Win         []string    `json:"win,omitempty"`
	Death       []string    `json:"death,omitempty"`
	DeathsGoOn  bool        `json:"deaths_go_on,omitempty"`
	// QuestionMark "space": a "?" typed is read as a space, as Infocom's
	// own interpreters did for these games (and Frotz does): "look?",
	// "what is a grue?".
	QuestionMark string `json:"question_mark,omitempty"`
	Player       int    `json:"player,omitempty"`
}

// ScoreSource says where a game's score is read.
type ScoreSource struct {
	Source  string `json:"source"` // v3, global, status, wording, ending; "" chooses by version
	Global  int    `json:"global,omitempty"`
	Pattern string `json:"pattern,omitempty"` // status or wording: a regexp with a named group "score" (and optionally "moves")
	re      *regexp.Regexp
}

//go:embed bindings.json
var bindingsJSON []byte

var builtinBindings = mustBindings(bindingsJSON)

func mustBindings(b []byte) []*Binding {
	bs, err := ParseBindings(b)
	if err != nil {
		panic(err)
	}
	return bs
}

// ParseBindings reads a bindings table ({"games": [...]}) and checks every
// entry: known score sources, a global number in 0..239, patterns that
// compile and name a "score" group.
func ParseBindings(b []byte) ([]*Binding, error) {
	var doc struct {
		Games []*Binding `json:"games"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("bindings: %w", err)
	}
	for i, g := range doc.Games {
		if g == nil {
			return nil, fmt.Errorf("bindings: game %d: null", i)
		}
		if err := g.check(); err != nil {
			return nil, fmt.Errorf("bindings: game %d (%q): %w", i, g.Name, err)
		}
	}
	return doc.Games, nil
}

func (g *Binding) check() error {
	if g.Key == "" && g.Match == "" {
		return fmt.Errorf("neither key nor match")
	}
	if g.Match != "" && g.Match != "textworld" {
		return fmt.Errorf("match %q: only textworld is known", g.Match)
	}
	switch g.Score.Source {
	case "", "v3", "ending", "status", "none":
	case "global":
		if g.Score.Global < 0 || g.Score.Global > 239 {
			return fmt.Errorf("score global %d: want 0..239", g.Score.Global)
		}
	case "wording":
		if g.Score.Pattern == "" {
			return fmt.Errorf("score source wording needs a pattern")
		}
	case "ask":
	default:
		return fmt.Errorf("unknown score source %q (known: v3, global, status, wording, ending, ask, none)", g.Score.Source)
	}
	if g.Score.Pattern != "" {
		re, err := regexp.Compile(g.Score.Pattern)
		if err != nil {
			return fmt.Errorf("score pattern: %w", err)
		}
		if re.SubexpIndex("score") < 0 {
			return fmt.Errorf("score pattern %q has no (?P<score>...) group", g.Score.Pattern)
		}
		g.Score.re = re
	}
	if g.MovesGlobal < 0 || g.MovesGlobal > 239 {
		return fmt.Errorf("moves_global %d: want 0..239", g.MovesGlobal)
	}
	if g.QuestionMark != "" && g.QuestionMark != "space" {
		return fmt.Errorf("question_mark %q: only \"space\" is known", g.QuestionMark)
	}
	if g.Player < 0 {
		return fmt.Errorf("player %d is negative", g.Player)
	}
	if g.MaxScore < 0 {
		return fmt.Errorf("max_score %v is negative", g.MaxScore)
	}
	return nil
}

// storyKey is the key of a story file in the bindings: release/serial/checksum.
func storyKey(release int, serial string, checksum uint16) string {
	return fmt.Sprintf("%d/%s/%04x", release, serial, checksum)
}

// findBinding returns the binding of a story, or the default one.
func findBinding(bs []*Binding, key string, textworld bool) *Binding {
	for _, b := range bs {
		if b.Key == key {
			return b
		}
	}
	if textworld {
		for _, b := range bs {
			if b.Match == "textworld" {
				return b
			}
		}
	}
	return &defaultBinding
}

// defaultBinding: version 3 games read the status globals, later ones the
// status line they draw; "verbose" is sent at the start.
var defaultBinding = Binding{Name: "default", Intro: []string{"verbose"}}

// hasFlat reports whether flat, text already lower-cased with its white
// space collapsed (flatten), holds one of the phrases.
func hasFlat(flat string, phrases []string) bool {
	for _, p := range phrases {
		if p = strings.ToLower(strings.Join(strings.Fields(p), " ")); p != "" && strings.Contains(flat, p) {
			return true
		}
	}
	return false
}

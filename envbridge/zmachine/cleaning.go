package zmachine

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// The Cleaning score of seed 000 (Sec. 4.1, "Cleaning"): the Cleaning games
// keep no score of their own ("out of a possible 0"), so the driver keeps it.
// "Agent receives 1 point for picking up every displaced item, 1 point for
// placing an item in the right location and -1 for manipulation with
// correctly placed item." The right location of every item is read from the
// facts of the house's default layout (clean_<size>_default.json, the
// TextWorld description of the house with everything in place); where the
// items start is read from the played game's own description. Both are
// TextWorld game descriptions: "world" facts at/on/in and "infos" names.
//
// Choices where the paper is silent: the pick-up point is given once per
// item that started displaced; taking an item from its right place costs 1
// each time and putting any item in its right place gains 1, so undoing a
// harm nets 0 and no loop raises the score; the maximum is 2 points per
// item that started displaced.

// Layout is where the items of a TextWorld house are, and its map.
type Layout struct {
	// Items maps an item's name (lower case) to its holder: the name of the
	// supporter or container it is on or in, or of the room whose floor it
	// lies on.
	Items map[string]string
	// Player is the room the player starts in.
	Player string
	// Exits maps a room and a direction (north, south, east, west) to the
	// room it leads to.
	Exits map[string]map[string]string
	// Rooms lists the room names.
	Rooms map[string]bool
}

// ErrLayout is wrapped by the errors of ParseLayout.
var ErrLayout = errors.New("not a TextWorld layout")

// ParseLayout reads a TextWorld game description (.json): the items' places
// from the at/on/in facts of "world", names from "infos".
func ParseLayout(data []byte) (Layout, error) {
	var d struct {
		World []struct {
			Name      string `json:"name"`
			Arguments []struct {
				Name string `json:"name"`
				Type string `json:"type"`
			} `json:"arguments"`
		} `json:"world"`
		Infos []json.RawMessage `json:"infos"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		return Layout{}, fmt.Errorf("%w: %v", ErrLayout, err)
	}
	names := map[string]string{}
	for i, raw := range d.Infos {
		var pair []json.RawMessage
		if err := json.Unmarshal(raw, &pair); err != nil || len(pair) != 2 {
			return Layout{}, fmt.Errorf("%w: infos[%d] is not an [id, info] pair", ErrLayout, i)
		}
		var id string
		var info struct {
			Name *string `json:"name"`
		}
		if err := json.Unmarshal(pair[0], &id); err != nil {
			return Layout{}, fmt.Errorf("%w: infos[%d]: id: %v", ErrLayout, i, err)
		}
		if err := json.Unmarshal(pair[1], &info); err != nil {
			return Layout{}, fmt.Errorf("%w: infos[%d]: %v", ErrLayout, i, err)
		}
		if info.Name != nil {
			names[id] = strings.ToLower(strings.TrimSpace(*info.Name))
		}
	}
	l := Layout{Items: map[string]string{}, Exits: map[string]map[string]string{}, Rooms: map[string]bool{}}
	dirs := map[string]string{"north_of": "north", "south_of": "south", "east_of": "east", "west_of": "west"}
	for i, f := range d.World {
		if len(f.Arguments) != 2 {
			continue
		}
		a, b := f.Arguments[0], f.Arguments[1]
		switch {
		case f.Name == "at" && a.Type == "P":
			if names[b.Name] == "" {
				return Layout{}, fmt.Errorf("%w: world[%d]: player in unnamed room %q", ErrLayout, i, b.Name)
			}
			l.Player = names[b.Name]
		case (f.Name == "at" || f.Name == "on" || f.Name == "in") && (a.Type == "o" || a.Type == "f" || a.Type == "k"):
			if names[a.Name] == "" || names[b.Name] == "" {
				return Layout{}, fmt.Errorf("%w: world[%d]: %s(%s, %s) names an unnamed entity", ErrLayout, i, f.Name, a.Name, b.Name)
			}
			l.Items[names[a.Name]] = names[b.Name]
		case dirs[f.Name] != "" && a.Type == "r" && b.Type == "r":
			// east_of(r1, r2): r1 lies east of r2, so "east" from r2 leads to r1.
			from, to := names[b.Name], names[a.Name]
			if from == "" || to == "" {
				return Layout{}, fmt.Errorf("%w: world[%d]: exit between unnamed rooms", ErrLayout, i)
			}
			if l.Exits[from] == nil {
				l.Exits[from] = map[string]string{}
			}
			l.Exits[from][dirs[f.Name]] = to
			l.Rooms[from], l.Rooms[to] = true, true
		}
	}
	if len(l.Items) == 0 {
		return Layout{}, fmt.Errorf("%w: no item is at, on or in anything", ErrLayout)
	}
	return l, nil
}

// ReadLayout reads and parses a TextWorld game description file.
func ReadLayout(path string) (Layout, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Layout{}, err
	}
	l, err := ParseLayout(b)
	if err != nil {
		return Layout{}, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

// IsCleaningGame reports whether a game is one of seed 000's Cleaning
// games: its file name starts with "clean".
func IsCleaningGame(name string) bool {
	return strings.HasPrefix(strings.ToLower(filepath.Base(name)), "clean")
}

// DefaultLayoutFile finds the default layout of a Cleaning game's house:
// the game's own description when its name ends in "_default", else
// "<prefix>_default.json" beside it for the longest prefix of its
// underscore-separated name ("clean_3x3_messy" -> "clean_3x3_default.json").
// ok is false when there is none.
func DefaultLayoutFile(storyFile string) (path string, ok bool) {
	dir := filepath.Dir(storyFile)
	base := strings.TrimSuffix(filepath.Base(storyFile), filepath.Ext(storyFile))
	parts := strings.Split(base, "_")
	for i := len(parts); i >= 1; i-- {
		p := filepath.Join(dir, strings.Join(parts[:i], "_")+".json")
		if i < len(parts) || parts[len(parts)-1] != "default" {
			p = filepath.Join(dir, strings.Join(parts[:i], "_")+"_default.json")
		}
		if _, err := os.Stat(p); err == nil {
			return p, true
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", false
		}
	}
	return "", false
}

// Cleaning keeps the Cleaning score of one episode.
type Cleaning struct {
	right     map[string]string
	at        map[string]string // where each item is now; "" when carried
	displaced map[string]bool   // started away from its right place
	picked    map[string]bool   // displaced items already picked up once
	exits     map[string]map[string]string
	room      string
	score     float64
}

// NewCleaning starts the score of an episode that begins in layout start,
// with the right places of layout right.
func NewCleaning(start, right Layout) *Cleaning {
	c := &Cleaning{right: right.Items, at: map[string]string{}, displaced: map[string]bool{}, picked: map[string]bool{},
		exits: start.Exits, room: start.Player}
	for item, h := range start.Items {
		c.at[item] = h
		if r, ok := right.Items[item]; ok && r != h {
			c.displaced[item] = true
		}
	}
	return c
}

// Max is the highest score: 2 points per item that started displaced.
func (c *Cleaning) Max() float64 { return float64(2 * len(c.displaced)) }

// Score is the score so far.
func (c *Cleaning) Score() float64 { return c.score }

var (
	reTake   = regexp.MustCompile(`(?i)you take the (.+?) from the (.+?)\.`)
	rePickUp = regexp.MustCompile(`(?i)you pick up the (.+?) from the ground\.`)
	rePut    = regexp.MustCompile(`(?i)you put the (.+?) (?:on|into) the (.+?)\.`)
	reDrop   = regexp.MustCompile(`(?i)you drop the (.+?) on the ground\.`)
	reDir    = regexp.MustCompile(`(?i)^\s*(?:go\s+)?(north|south|east|west)\s*$`)
)

// Step reads one command and the game's reply (TextWorld's messages: "You
// take the X from the Y.", "You pick up the X from the ground.", "You put
// the X on/into the Y.", "You drop the X on the ground.") and returns the
// change in score.
func (c *Cleaning) Step(action, reply string) float64 {
	text := strings.Join(strings.Fields(reply), " ")
	before := c.score
	if m := reDir.FindStringSubmatch(action); m != nil {
		if to := c.exits[c.room][strings.ToLower(m[1])]; to != "" && strings.Contains(strings.ToLower(text), to) {
			c.room = to
		}
	}
	// The events of one reply, in the order the game reports them.
	type event struct {
		at         int
		put        bool
		item, dest string
	}
	var evs []event
	for _, m := range reTake.FindAllStringSubmatchIndex(text, -1) {
		evs = append(evs, event{at: m[0], item: text[m[2]:m[3]]})
	}
	for _, m := range rePickUp.FindAllStringSubmatchIndex(text, -1) {
		evs = append(evs, event{at: m[0], item: text[m[2]:m[3]]})
	}
	for _, m := range rePut.FindAllStringSubmatchIndex(text, -1) {
		evs = append(evs, event{at: m[0], put: true, item: text[m[2]:m[3]], dest: strings.ToLower(text[m[4]:m[5]])})
	}
	for _, m := range reDrop.FindAllStringSubmatchIndex(text, -1) {
		evs = append(evs, event{at: m[0], put: true, item: text[m[2]:m[3]], dest: c.room})
	}
	slices.SortFunc(evs, func(a, b event) int { return a.at - b.at })
	for _, ev := range evs {
		if ev.put {
			c.put(strings.ToLower(ev.item), ev.dest)
		} else {
			c.take(strings.ToLower(ev.item))
		}
	}
	return c.score - before
}

func (c *Cleaning) take(item string) {
	right, ok := c.right[item]
	if !ok {
		return
	}
	switch {
	case c.at[item] == "":
		// already carried (a reply seen twice): nothing changes
	case c.at[item] == right:
		c.score-- // manipulating a correctly placed item
	case c.displaced[item] && !c.picked[item]:
		c.picked[item] = true
		c.score++ // picking up a displaced item
	}
	c.at[item] = ""
}

func (c *Cleaning) put(item, holder string) {
	right, ok := c.right[item]
	if !ok || c.at[item] != "" {
		return // unknown, or not seen taken: nothing to score
	}
	c.at[item] = holder
	if holder == right {
		c.score++ // placing an item in its right location
	}
}

package zmachine

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// JerichoFile is the name of the Jericho suite's game data in a folder of
// story files (../shared/games/jericho/suite.json): for each story file, by
// its file name, Jericho's seed, a winning walkthrough, the dictionary's word
// length and the verb grammar of Jericho's template action generator.
const JerichoFile = "suite.json"

// JerichoGame is one game of a JerichoFile.
type JerichoGame struct {
	Seed          int64    `json:"seed"`
	Walkthrough   []string `json:"walkthrough"`
	MaxWordLength int      `json:"max_word_length"`
	// Grammar is Jericho's verb grammar: templates separated by ";", each
	// "verb/synonym ... OBJ ... OBJ" with the verb's synonyms split by "/".
	Grammar string `json:"grammar"`
}

// maxJerichoBytes bounds a JerichoFile read (the suite's is 600 KB).
const maxJerichoBytes = 32 << 20

// ReadJericho reads a JerichoFile. A missing file is no error: ok is false.
func ReadJericho(path string) (games map[string]JerichoGame, ok bool, err error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if st.Size() > maxJerichoBytes {
		return nil, false, fmt.Errorf("%s: %d bytes, more than %d", path, st.Size(), maxJerichoBytes)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, false, err
	}
	games, err = ParseJericho(b)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	return games, true, nil
}

// ParseJericho reads the JSON of a JerichoFile and checks every entry: a
// story file name and a non-negative word length. A walkthrough may hold
// empty commands (Jericho sends them as a bare return).
func ParseJericho(b []byte) (map[string]JerichoGame, error) {
	var games map[string]JerichoGame
	if err := json.Unmarshal(b, &games); err != nil {
		return nil, fmt.Errorf("jericho games: %w", err)
	}
	for name, g := range games {
		if name == "" || filepath.Base(name) != name {
			return nil, fmt.Errorf("jericho games: %q is not a story file name", name)
		}
		if g.MaxWordLength < 0 {
			return nil, fmt.Errorf("jericho games: %s: max_word_length %d is negative", name, g.MaxWordLength)
		}
	}
	return games, nil
}

// jerichoOf returns the JerichoFile entry of a story file, reading the file
// of its folder once (cache maps a folder to its entries, nil when it has
// none).
func jerichoOf(file string, cache map[string]map[string]JerichoGame) (JerichoGame, bool, error) {
	dir := filepath.Dir(file)
	games, seen := cache[dir]
	if !seen {
		var err error
		games, _, err = ReadJericho(filepath.Join(dir, JerichoFile))
		if err != nil {
			return JerichoGame{}, false, err
		}
		cache[dir] = games
	}
	g, ok := games[filepath.Base(file)]
	return g, ok, nil
}

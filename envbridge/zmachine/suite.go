package zmachine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/samem/trainer/envbridge"
)

// Config configures a Suite. The zero value is usable: every zero field takes
// its default.
type Config struct {
	// Interpreter selects how games run: "" or "zvm" in-process on the Go
	// interpreter envbridge/zmachine/zvm (the default; no Debian package);
	// "dfrotz" (or a path to it) as a dfrotz child process, kept as the test
	// oracle and for comparison. Only the dfrotz fields below (Args,
	// TurnTimeout, QuietTime, MaxTurnBytes, ScoreVerb) apply to dfrotz.
	Interpreter string
	// Budget is the in-process machine's instruction budget per turn: a game
	// that runs it out without asking for input ends its episode with
	// ErrRunaway. 0: zvm's default (10,000,000).
	Budget int
	// ForceSeed plays every game with Seed, even a game whose binding names
	// its own seed (the Jericho games' walkthroughs are recorded at theirs).
	ForceSeed bool
	// Bindings are per-game bindings tried before the built-in table
	// (bindings.json); see Binding and ParseBindings.
	Bindings []*Binding
	// ValidActions fills every observation's Admissible list with the valid
	// actions (in-process only; see Env.ValidActions).
	ValidActions bool
	// ValidBudget bounds the Z-machine instructions one valid-action search
	// spends on its candidates (the last candidate tried is the one that
	// passes it): 0 is DefaultValidBudget, a negative value no bound.
	ValidBudget int
	// Args are the interpreter's options before the seed and the story file.
	// Default: -m (no MORE prompts) -p (plain ASCII) -q (quiet) -Z 0 (no
	// interpreter warnings in the game text). The seed goes as "-s SEED" and
	// saves are confined to the private directory with "-R DIR".
	Args []string
	// MaxSteps is the step limit of every task. Default (0): the game's
	// own limit from PaperStepLimit (seed 000's games), else DefaultMaxSteps.
	MaxSteps int
	// Seed is every task's random seed (classic games draw from it; TextWorld
	// games are deterministic). Every value is a seed, 0 included; a game
	// whose binding names a seed plays with that one unless ForceSeed.
	Seed int64
	// TurnTimeout is how long the interpreter may take to start answering a
	// command before it is killed with ErrTurnTimeout. Default 10 s.
	TurnTimeout time.Duration
	// QuietTime is the fall-back end of a turn: once the interpreter has
	// written something, silence this long without a recognised prompt ends
	// the turn. Turns normally end at the prompt, long before. Default 1 s.
	QuietTime time.Duration
	// MaxTurnBytes caps the text kept from one turn (the rest is dropped and
	// the observation says so). Default 256 KiB.
	MaxTurnBytes int
	// ScoreVerb is the command that reports the score. Default "score".
	ScoreVerb string
	// Goals overrides the goal of a game, by game name (the file name without
	// its extension, with its folder inside a folder suite: "arigraph/clean").
	Goals map[string]string
	// Unseen names games held out of training: they go to valid_unseen alone.
	Unseen []string
}

// Errors of suite construction.
var (
	// ErrNoInterpreter is returned when the interpreter program is not found.
	ErrNoInterpreter = errors.New("z-machine interpreter not found")
	// ErrNoGames is returned for a folder without story files.
	ErrNoGames = errors.New("no story files")
)

// DefaultValidBudget is the default Config.ValidBudget: 2,000,000
// instructions, 11 to 15 ms on one core at the 134 to 188 million
// instructions per CPU-second zvm runs Inform games at (README,
// Benchmarks).
const DefaultValidBudget = 2_000_000

// validBudget is the search's budget in instructions; 0 for none.
func (c Config) validBudget() uint64 {
	switch {
	case c.ValidBudget < 0:
		return 0
	case c.ValidBudget == 0:
		return DefaultValidBudget
	}
	return uint64(c.ValidBudget)
}

// dfrotz reports whether games run as dfrotz child processes.
func (c Config) dfrotz() bool { return c.Interpreter != "" && c.Interpreter != "zvm" }

func (c Config) withDefaults() (Config, error) {
	if c.dfrotz() {
		path, err := FindInterpreter(c.Interpreter)
		if err != nil {
			return c, err
		}
		c.Interpreter = path
	}
	if c.ValidActions && c.dfrotz() {
		return c, fmt.Errorf("zmachine: valid actions need the in-process interpreter, not %s", c.Interpreter)
	}
	if c.Budget < 0 {
		return c, fmt.Errorf("zmachine: instruction budget %d is negative", c.Budget)
	}
	if c.Args == nil {
		c.Args = []string{"-m", "-p", "-q", "-Z", "0"}
	}
	if c.MaxSteps < 0 {
		c.MaxSteps = 0
	}
	if c.TurnTimeout <= 0 {
		c.TurnTimeout = 10 * time.Second
	}
	if c.QuietTime <= 0 {
		c.QuietTime = time.Second
	}
	if c.MaxTurnBytes <= 0 {
		c.MaxTurnBytes = 256 << 10
	}
	if c.ScoreVerb == "" {
		c.ScoreVerb = "score"
	}
	return c, nil
}

// FindInterpreter resolves name (a path or a program name) to an executable,
// looking on PATH and then in /usr/games, where Debian puts dfrotz.
func FindInterpreter(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	if !strings.ContainsRune(name, os.PathSeparator) {
		p := filepath.Join("/usr/games", name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: %q (install Debian package frotz)", ErrNoInterpreter, name)
}

// game is one story file and what a probe run learned about it.
type game struct {
	name      string // file name without extension, slash-separated inside a folder
	file      string // absolute path
	textworld bool   // a TextWorld game (banner art, objective in the opening)
	hasScore  bool   // the score verb answers with a score
	maxScore  float64
	goal      string
	oracle    int // walkthrough length; 0 when unknown
	walk      []string
	// Cleaning games (seed 000): where the items start and where they
	// belong; nil for other games and for a Cleaning game with no default
	// layout beside it.
	cleanStart, cleanRight *Layout
	story                  []byte   // the story file (in-process)
	binding                *Binding // never nil
	from                   scoreFrom
	scoreGlobal            int // the globals of fromGlobal, -1 for none
	movesGlobal            int
	jericho                *JerichoGame // the game's entry in its folder's JerichoFile, or nil
	player                 playerWatch  // learnt by watching the player move
}

// Suite offers the games of one story file or of a folder of story files
// (searched recursively for .z1 to .z8), each game one task. Every game is in
// train and in valid_seen (memory methods of seed 002 learn over trials of
// the same game and are evaluated on it); games named in Config.Unseen are
// instead in valid_unseen alone. Task IDs are "<split>/<game>"; the Type is
// the game name, so per-type reports are per game.
//
// NewSuite plays each game's opening once to read its objective and score.
type Suite struct {
	cfg   Config
	name  string
	games []*game
	byID  map[string]*game
	tasks map[string][]envbridge.Task
	split []string
}

var _ envbridge.Suite = (*Suite)(nil)

// NewSuite opens a story file or a folder of story files. A TextWorld game's
// .json description beside it (same name) supplies max_score, the
// walkthrough (OracleSteps) and the objective when the opening text has none.
func NewSuite(ctx context.Context, cfg Config, path string) (*Suite, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("zmachine suite %s: %w", path, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("zmachine suite: %w", err)
	}
	s := &Suite{cfg: cfg, byID: map[string]*game{}, tasks: map[string][]envbridge.Task{}}
	var files []string
	if st.IsDir() {
		s.name = "zmachine:" + filepath.Base(abs)
		err = filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && isStory(p) {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("zmachine suite %s: %w", path, err)
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("zmachine suite %s: %w", path, ErrNoGames)
		}
	} else {
		s.name = "zmachine:" + strings.TrimSuffix(filepath.Base(abs), filepath.Ext(abs))
		files = []string{abs}
	}
	slices.Sort(files)
	dir, err := os.MkdirTemp("", "zmachine-probe-")
	if err != nil {
		return nil, fmt.Errorf("zmachine suite: %w", err)
	}
	defer os.RemoveAll(dir)
	jericho := map[string]map[string]JerichoGame{}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
		if st.IsDir() {
			rel, _ := filepath.Rel(abs, f)
			name = filepath.ToSlash(strings.TrimSuffix(rel, filepath.Ext(rel)))
		}
		g := &game{name: name, file: f, scoreGlobal: -1, movesGlobal: -1}
		if err := s.probe(ctx, g, dir, jericho); err != nil {
			return nil, fmt.Errorf("zmachine suite: game %s: %w", name, err)
		}
		s.games = append(s.games, g)
	}
	s.buildTasks()
	return s, nil
}

func isStory(p string) bool {
	ext := strings.ToLower(filepath.Ext(p))
	return len(ext) == 3 && ext[:2] == ".z" && ext[2] >= '1' && ext[2] <= '8'
}

// twDesc is the part of a TextWorld game description (.json) the suite reads.
type twDesc struct {
	Objective string `json:"objective"`
	Metadata  struct {
		MaxScore    float64         `json:"max_score"`
		Walkthrough json.RawMessage `json:"walkthrough"`
	} `json:"metadata"`
}

// maxDescBytes bounds a .json description read (the largest here is 380 KB).
const maxDescBytes = 16 << 20

// readDesc reads the .json beside a story file; ok is false when there is none.
func readDesc(file string) (d twDesc, walk []string, ok bool, err error) {
	p := strings.TrimSuffix(file, filepath.Ext(file)) + ".json"
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return d, nil, false, nil
	}
	if err != nil {
		return d, nil, false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return d, nil, false, err
	}
	if st.Size() > maxDescBytes {
		return d, nil, false, fmt.Errorf("%s: %d bytes, more than %d", p, st.Size(), maxDescBytes)
	}
	if err := json.NewDecoder(f).Decode(&d); err != nil {
		return d, nil, false, fmt.Errorf("%s: %w", p, err)
	}
	walk, err = parseWalkthrough(d.Metadata.Walkthrough)
	if err != nil {
		return d, nil, false, fmt.Errorf("%s: walkthrough: %w", p, err)
	}
	return d, walk, true, nil
}

// parseWalkthrough reads metadata.walkthrough: a JSON list of commands, or
// absent.
func parseWalkthrough(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var w []string
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, err
	}
	return w, nil
}

// maxStoryBytes bounds a story file read (the standard's largest, v8, is 512 KiB).
const maxStoryBytes = 512 << 10

// readStory reads a story file and finds its binding.
func readStory(g *game, hasDesc bool, extra []*Binding) error {
	st, err := os.Stat(g.file)
	if err != nil {
		return err
	}
	if st.Size() > maxStoryBytes {
		return fmt.Errorf("%s: %d bytes, more than a story file may have (%d)", g.file, st.Size(), maxStoryBytes)
	}
	b, err := os.ReadFile(g.file)
	if err != nil {
		return err
	}
	if len(b) < 64 {
		return fmt.Errorf("%s: %d bytes, shorter than a story-file header (64)", g.file, len(b))
	}
	g.story = b
	key := storyKey(int(b[2])<<8|int(b[3]), string(b[0x12:0x18]), uint16(b[0x1c])<<8|uint16(b[0x1d]))
	g.binding = findBinding(append(append([]*Binding(nil), extra...), builtinBindings...), key, hasDesc)
	return nil
}

// probe plays the opening of g and asks its score (in a throwaway run,
// before any episode).
func (s *Suite) probe(ctx context.Context, g *game, dir string, jericho map[string]map[string]JerichoGame) error {
	desc, walk, hasDesc, err := readDesc(g.file)
	if err != nil {
		return err
	}
	if !hasDesc {
		jg, ok, err := jerichoOf(g.file, jericho)
		if err != nil {
			return err
		}
		if ok {
			g.jericho = &jg
			walk = jg.Walkthrough
		}
	}
	g.binding = &defaultBinding
	// dfrotz reads the file itself and says what is wrong with it; its
	// binding (the seed) is used when the header can be read.
	if err := readStory(g, hasDesc, s.cfg.Bindings); err != nil && !s.cfg.dfrotz() {
		return err
	}
	var (
		opening string
		rep     Report
		hasRep  bool
	)
	if s.cfg.dfrotz() {
		p, op, err := s.start(ctx, g, s.seedOf(g, s.cfg.Seed), dir)
		if err != nil {
			return err
		}
		defer p.close()
		if err := p.send(s.cfg.ScoreVerb); err != nil {
			return err
		}
		out, err := p.readTurn(ctx)
		if err != nil {
			return fmt.Errorf("score: %w", err)
		}
		opening = op
		sc, ok := ParseScore(out)
		rep, hasRep = Report{Score: sc.Score, Max: sc.Max}, ok
	} else {
		vg, op, err := s.startVM(g, s.seedOf(g, s.cfg.Seed))
		if err != nil {
			return err
		}
		opening = op
		rep, hasRep = vg.askScore()
		g.from, g.scoreGlobal, g.movesGlobal = scoreSource(g.binding, vg, isTimeGame(g.story), rep, hasRep)
	}
	// "out of a possible 0" (TextWorld's clean) is no score: the verb is not
	// asked every step then.
	g.hasScore = hasRep && rep.Max > 0
	g.maxScore = rep.Max
	if g.maxScore == 0 && g.binding.MaxScore > 0 {
		g.hasScore, g.maxScore = true, g.binding.MaxScore
	}
	if g.maxScore == 0 && hasDesc {
		g.maxScore = desc.Metadata.MaxScore
	}
	g.walk, g.oracle = walk, len(walk)
	if hasDesc && IsCleaningGame(g.name) {
		if err := g.readCleaning(); err != nil {
			return err
		}
	}
	banner, _ := splitBanner(opening)
	g.textworld = hasDesc || strings.Contains(banner, "$$$$")
	if g.textworld && g.binding == &defaultBinding {
		g.binding = findBinding(builtinBindings, "", true)
	}
	switch {
	case s.cfg.Goals[g.name] != "":
		g.goal = s.cfg.Goals[g.name]
	case g.textworld && Objective(opening) != "":
		g.goal = Objective(opening)
	case hasDesc && strings.TrimSpace(desc.Objective) != "":
		g.goal = strings.Join(strings.Fields(desc.Objective), " ")
	case g.cleanRight != nil:
		// seed 000 Sec. 4.1's Cleaning task, in the paper's words.
		g.goal = "Tidy up the house: identify the items that are out of place and return each of them to its appropriate location."
	case g.maxScore > 0:
		g.goal = "Play the game and raise your score as high as you can (the maximum is " +
			strconv.FormatFloat(g.maxScore, 'f', -1, 64) + " points)."
	case g.hasScore:
		g.goal = "Play the game and raise your score as high as you can."
	default:
		g.goal = "Play the game and reach its end."
	}
	return nil
}

// readCleaning reads the layouts of a Cleaning game: its own description
// (where the items start) and its house's default layout (where they
// belong; DefaultLayoutFile). The score's maximum is 2 per displaced item.
func (g *game) readCleaning() error {
	right, ok := DefaultLayoutFile(g.file)
	if !ok {
		return nil
	}
	start, err := ReadLayout(strings.TrimSuffix(g.file, filepath.Ext(g.file)) + ".json")
	if err != nil {
		return fmt.Errorf("cleaning layout: %w", err)
	}
	def, err := ReadLayout(right)
	if err != nil {
		return fmt.Errorf("cleaning default layout: %w", err)
	}
	g.cleanStart, g.cleanRight = &start, &def
	g.maxScore = NewCleaning(start, def).Max()
	return nil
}

// start starts an interpreter on g and reads its opening text.
func (s *Suite) start(ctx context.Context, g *game, seed int64, dir string) (*proc, string, error) {
	argv := append([]string{s.cfg.Interpreter}, s.cfg.Args...)
	argv = append(argv, "-R", dir, "-s", strconv.FormatInt(seed, 10), g.file)
	p, err := startProc(argv, dir, s.cfg.MaxTurnBytes, s.cfg.TurnTimeout, s.cfg.QuietTime)
	if err != nil {
		return nil, "", err
	}
	opening, err := p.readTurn(ctx)
	if err != nil {
		p.close()
		return nil, "", fmt.Errorf("opening: %w", err)
	}
	return p, opening, nil
}

// DefaultMaxSteps is the step limit of a game the papers give none for.
const DefaultMaxSteps = 100

// PaperStepLimit is the step limit seed 000 (Fig. 4 caption) sets for its
// games, by the file name's first word: 150 in Treasure Hunt ("hunt...") and
// Cleaning ("clean..."), 60 in Cooking ("cook..."); 0 for any other game.
func PaperStepLimit(name string) int {
	base := strings.ToLower(name)
	if i := strings.LastIndexByte(base, '/'); i >= 0 {
		base = base[i+1:]
	}
	switch {
	case strings.HasPrefix(base, "hunt"), strings.HasPrefix(base, "clean"):
		return 150
	case strings.HasPrefix(base, "cook"):
		return 60
	}
	return 0
}

// stepLimit is a game's step limit: Config.MaxSteps when set, else the
// paper's limit for the game, else DefaultMaxSteps.
func (s *Suite) stepLimit(name string) int {
	switch {
	case s.cfg.MaxSteps > 0:
		return s.cfg.MaxSteps
	case PaperStepLimit(name) > 0:
		return PaperStepLimit(name)
	}
	return DefaultMaxSteps
}

func (s *Suite) buildTasks() {
	unseen := map[string]bool{}
	for _, u := range s.cfg.Unseen {
		unseen[u] = true
	}
	add := func(split string, g *game) {
		t := envbridge.Task{
			ID: split + "/" + g.name, Type: g.name, Goal: g.goal, Split: split,
			Seed: s.seedOf(g, s.cfg.Seed), MaxSteps: s.stepLimit(g.name), OracleSteps: g.oracle,
		}
		s.tasks[split] = append(s.tasks[split], t)
		s.byID[t.ID] = g
	}
	for _, g := range s.games {
		if unseen[g.name] {
			add(envbridge.SplitValidUnseen, g)
			continue
		}
		add(envbridge.SplitTrain, g)
		add(envbridge.SplitValidSeen, g)
	}
	for _, sp := range []string{envbridge.SplitTrain, envbridge.SplitValidSeen, envbridge.SplitValidUnseen} {
		if len(s.tasks[sp]) > 0 {
			s.split = append(s.split, sp)
		}
	}
}

// Name is "zmachine:" and the file or folder name ("zmachine:hunt").
func (s *Suite) Name() string { return s.name }

// Style is envbridge.StyleFiction: free-form actions, no admissible list.
func (s *Suite) Style() envbridge.Style { return envbridge.StyleFiction }

// Splits lists train and valid_seen, and valid_unseen when Config.Unseen
// holds a game out.
func (s *Suite) Splits() []string { return slices.Clone(s.split) }

// Tasks lists a split's tasks in file order.
func (s *Suite) Tasks(split string) ([]envbridge.Task, error) {
	ts, ok := s.tasks[split]
	if !ok {
		return nil, fmt.Errorf("zmachine tasks %q: %w", split, envbridge.ErrUnknownSplit)
	}
	return slices.Clone(ts), nil
}

// Walkthrough returns the winning command sequence of the game a task plays
// (from its TextWorld .json, or the JerichoFile of its folder), or nil when
// unknown.
func (s *Suite) Walkthrough(taskID string) []string {
	if g, ok := s.byID[taskID]; ok {
		return slices.Clone(g.walk)
	}
	return nil
}

// Open makes an Env with its own private save directory. No interpreter runs
// until Reset.
func (s *Suite) Open(ctx context.Context) (envbridge.Env, error) {
	return s.OpenEnv(ctx)
}

// OpenEnv is Open with the concrete type (for Save and Restore).
func (s *Suite) OpenEnv(ctx context.Context) (*Env, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("zmachine open: %w", err)
	}
	dir, err := os.MkdirTemp("", "zmachine-")
	if err != nil {
		return nil, fmt.Errorf("zmachine open: %w", err)
	}
	return &Env{suite: s, dir: dir, done: true}, nil
}

// splitBanner splits a TextWorld opening into the ASCII-art banner and the
// rest; without banner art the banner is "".
func splitBanner(opening string) (banner, rest string) {
	ls := strings.Split(opening, "\n")
	end := 0
	for i, l := range ls {
		if i > 40 {
			break
		}
		if strings.Contains(l, "$$") || strings.Contains(l, "\\_") {
			end = i + 1
		}
	}
	return strings.Join(ls[:end], "\n"), strings.Join(ls[end:], "\n")
}

// ScoreSource says where the driver reads the score of the game a task
// plays (in-process): "status line", "version 3 status globals", "global
// 17, moves global 18", "asked" (the score command, on the machine and
// undone, after every turn), "ending" or "none"; "" for an unknown task.
func (s *Suite) ScoreSource(taskID string) string {
	g, ok := s.byID[taskID]
	if !ok {
		return ""
	}
	var src string
	switch g.from {
	case fromV3:
		src = "version 3 status globals"
	case fromStatus:
		src = "status line"
	case fromGlobal:
		src = fmt.Sprintf("global %d", g.scoreGlobal)
	case fromWording:
		src = "wording"
	case fromEnding:
		src = "ending"
	case fromAsk:
		src = "asked"
	default:
		src = "none"
	}
	if g.movesGlobal >= 0 {
		src += fmt.Sprintf(", moves global %d", g.movesGlobal)
	}
	return src
}

package app

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/internal/promptset"
	"github.com/samem/trainer/llm"
)

// ProvenanceFile is written by train to <run>/ and by eval to its
// evaluation directory: what made the results (docs/RESULTS.md).
const ProvenanceFile = "provenance.json"

// ProvenanceFormat is the version of provenance.json's layout.
const ProvenanceFormat = 1

// Provenance is what made a run's results: the code as built, the Go
// toolchain and modules, the environment's identity, the models as the
// servers named them, every prompt template's SHA-256, and the resolved
// settings. It never holds a secret (Config has no key).
type Provenance struct {
	Format  int    `json:"format"`
	Command string `json:"command"` // train or eval
	Code    Code   `json:"code"`
	Go      string `json:"go"`
	// Platform is GOOS/GOARCH.
	Platform    string      `json:"platform"`
	Modules     []Module    `json:"modules"`
	Environment EnvIdentity `json:"environment"`
	Models      Models      `json:"models"`
	// Prompts maps every prompt template compiled into the program
	// ("thought/household.tmpl") to its SHA-256; PromptSet is the SHA-256 of
	// the sorted "name sha256" lines (one number for the whole set).
	Prompts   map[string]string `json:"prompts"`
	PromptSet string            `json:"prompt_set"`
	Settings  Config            `json:"settings"`
	// Warnings are the differences found when the record was made: an
	// evaluation's against the run's training, a training's against an
	// earlier training of the same run directory.
	Warnings []string `json:"warnings,omitempty"`
	// Earlier keeps the records of earlier trainings of the same run
	// directory that differ from this one (a run resumed with another
	// build or model).
	Earlier []Provenance `json:"earlier,omitempty"`
}

// Code is the program's version as Go embedded it at build time
// (runtime/debug.ReadBuildInfo): the main module, and the VCS revision,
// time and modified flag when the build stamped them.
type Code struct {
	Module   string `json:"module"`
	Version  string `json:"version"`
	VCS      string `json:"vcs,omitempty"`
	Revision string `json:"revision,omitempty"`
	Time     string `json:"time,omitempty"`
	// Modified is true when the working tree had uncommitted changes.
	Modified *bool `json:"modified,omitempty"`
	// Note says why there is no revision.
	Note string `json:"note,omitempty"`
}

// Module is one module the program was built with.
type Module struct {
	Path    string `json:"path"`
	Version string `json:"version"`
	Sum     string `json:"sum,omitempty"`
}

// EnvIdentity says which environment a run played.
type EnvIdentity struct {
	Kind  string `json:"kind"`
	Suite string `json:"suite"`
	// Version names the version of the world's rules where it has one
	// (the household world's ALFWorld grammar, an AgentGym server's own
	// description).
	Version string `json:"version,omitempty"`
	// Tasks is the SHA-256 of every split's task list (id, type, goal,
	// step limit, oracle steps): a world generated or served otherwise
	// differs here.
	Tasks string `json:"tasks_sha256"`
	// Files are the game files (Z-machine) or the environment program
	// (jsonl) with their SHA-256.
	Files []FileHash `json:"files,omitempty"`
}

// FileHash is a file's path and SHA-256.
type FileHash struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// Models are the models of a run: as configured, and as the replies named
// them (the "model" and "system_fingerprint" fields; empty offline).
type Models struct {
	Chat   string       `json:"chat"`
	Embed  string       `json:"embed"`
	Served []llm.Served `json:"served,omitempty"`
}

// codeOf reads the build information of the running program.
func codeOf(bi *debug.BuildInfo) (Code, []Module, string) {
	if bi == nil {
		return Code{Note: "no build information (not built with module support)"}, nil, runtime.Version()
	}
	c := Code{Module: bi.Main.Path, Version: bi.Main.Version}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs":
			c.VCS = s.Value
		case "vcs.revision":
			c.Revision = s.Value
		case "vcs.time":
			c.Time = s.Value
		case "vcs.modified":
			m := s.Value == "true"
			c.Modified = &m
		}
	}
	if c.Revision == "" {
		c.Note = "no VCS revision embedded: build with go build -buildvcs=true from a git checkout (GOFLAGS may set -buildvcs=false; go test binaries never carry one)"
	}
	var mods []Module
	for _, d := range bi.Deps {
		if d.Replace != nil {
			d = d.Replace
		}
		mods = append(mods, Module{Path: d.Path, Version: d.Version, Sum: d.Sum})
	}
	slices.SortFunc(mods, func(a, b Module) int { return cmp.Compare(a.Path, b.Path) })
	return c, mods, cmp.Or(bi.GoVersion, runtime.Version())
}

// NewProvenance describes a run of command with the resolved cfg on suite;
// served are the models the replies named so far.
func NewProvenance(ctx context.Context, command string, cfg Config, suite envbridge.Suite, embed llm.Embedder, served []llm.Served) Provenance {
	bi, _ := debug.ReadBuildInfo()
	code, mods, goVersion := codeOf(bi)
	p := Provenance{
		Format: ProvenanceFormat, Command: command, Code: code, Go: goVersion,
		Platform: runtime.GOOS + "/" + runtime.GOARCH, Modules: mods,
		Environment: envIdentity(ctx, cfg, suite),
		Models:      Models{Chat: chatModel(cfg), Served: served},
		Prompts:     promptset.Hashes(),
		Settings:    cfg.Resolved(),
	}
	if embed != nil {
		p.Models.Embed = fmt.Sprintf("%s:%s (%d dimensions)", cfg.LLM.EmbedBackend(), embed.Model(), embed.Dim())
	}
	p.PromptSet = promptSetHash(p.Prompts)
	return p
}

func chatModel(cfg Config) string {
	if cfg.LLM.Backend == BackendOffline {
		return "offline (rule-based roles)"
	}
	return string(cfg.LLM.Backend) + ":" + cfg.LLM.ChatModel
}

func promptSetHash(ps map[string]string) string {
	h := sha256.New()
	for _, n := range slices.Sorted(mapsKeys(ps)) {
		fmt.Fprintf(h, "%s %s\n", n, ps[n])
	}
	return hex.EncodeToString(h.Sum(nil))
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// envIdentity fingerprints the suite's tasks and, per kind, names its
// version and files.
func envIdentity(ctx context.Context, cfg Config, suite envbridge.Suite) EnvIdentity {
	id := EnvIdentity{Kind: string(cfg.Env.Kind), Suite: suite.Name()}
	h := sha256.New()
	for _, sp := range suite.Splits() {
		ts, err := suite.Tasks(sp)
		if err != nil {
			continue
		}
		for _, t := range ts {
			fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%d\x00%d\n", sp, t.ID, t.Type, t.Goal, t.MaxSteps, t.OracleSteps)
		}
	}
	id.Tasks = hex.EncodeToString(h.Sum(nil))
	switch cfg.Env.Kind {
	case EnvHousehold:
		id.Version = fmt.Sprintf("built-in household world, ALFWorld %s grammar, world seed %d", cmp.Or(string(cfg.Env.Grammar), string(Grammar03)), cfg.Env.WorldSeed)
	case EnvZMachine:
		id.Version = "interpreter " + cmp.Or(string(cfg.Env.Interpreter), string(InterpreterZVM))
		id.Files = gameFiles(cfg.Env.Game)
	case EnvJSONL:
		if f := strings.Fields(cfg.Env.Command); len(f) > 0 {
			if path, err := exec.LookPath(f[0]); err == nil {
				if sum, err := fileSHA256(path); err == nil {
					id.Files = []FileHash{{Path: path, SHA256: sum}}
				}
			}
		}
	case EnvAgentGym:
		type informer interface {
			ServerInfo(context.Context) (string, error)
		}
		if s, ok := suite.(informer); ok {
			info, err := s.ServerInfo(ctx)
			if err != nil {
				info = "unknown (" + err.Error() + ")"
			}
			id.Version = "server: " + info
		}
	}
	return id
}

// gameFiles hashes a story file, or the story files (.z1 to .z8) under a
// folder.
func gameFiles(game string) []FileHash {
	if game == "" {
		return nil
	}
	var out []FileHash
	add := func(path string) {
		if sum, err := fileSHA256(path); err == nil {
			out = append(out, FileHash{Path: path, SHA256: sum})
		}
	}
	st, err := os.Stat(game)
	if err != nil {
		return nil
	}
	if !st.IsDir() {
		add(game)
		return out
	}
	filepath.WalkDir(game, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			ext := strings.ToLower(filepath.Ext(path))
			if len(ext) == 3 && ext[1] == 'z' && ext[2] >= '1' && ext[2] <= '8' {
				add(path)
			}
		}
		return nil
	})
	return out
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Compare options: what a comparison leaves aside.
type compareOpts struct {
	// settings compares the settings that change results (an evaluation
	// against its training does not: its overrides name its directory).
	settings bool
	// ignore lists flags left out (-seed between the seeds of one study).
	ignore []string
	// sameEnvNotNeeded leaves the environment's identity out (the cells of
	// a grid play other world seeds by design).
	sameEnvNotNeeded bool
}

// Differences names every way b differs from a, as "what: a's value →
// b's value" lines: the code (revision, modified flag), Go, the modules,
// the environment, the models the servers named (when both sides have
// replies), the prompt templates and, with opts.settings, the settings
// that change results.
func (a Provenance) Differences(b Provenance, opts compareOpts) []string {
	var out []string
	add := func(what, x, y string) {
		if x != y {
			out = append(out, fmt.Sprintf("%s: %s → %s", what, cmp.Or(x, "none"), cmp.Or(y, "none")))
		}
	}
	add("code revision", a.Code.describe(), b.Code.describe())
	add("Go", a.Go, b.Go)
	am, bm := map[string]string{}, map[string]string{}
	for _, m := range a.Modules {
		am[m.Path] = m.Version
	}
	for _, m := range b.Modules {
		bm[m.Path] = m.Version
	}
	for _, p := range slices.Sorted(mapsKeys(union(am, bm))) {
		add("module "+p, am[p], bm[p])
	}
	add("environment suite", a.Environment.Suite, b.Environment.Suite)
	if !opts.sameEnvNotNeeded {
		add("environment version", a.Environment.Version, b.Environment.Version)
		add("environment tasks (SHA-256)", short(a.Environment.Tasks), short(b.Environment.Tasks))
	}
	af, bf := map[string]string{}, map[string]string{}
	for _, f := range a.Environment.Files {
		af[filepath.Base(f.Path)] = f.SHA256
	}
	for _, f := range b.Environment.Files {
		bf[filepath.Base(f.Path)] = f.SHA256
	}
	for _, n := range slices.Sorted(mapsKeys(union(af, bf))) {
		add("environment file "+n+" (SHA-256)", short(af[n]), short(bf[n]))
	}
	add("chat model", a.Models.Chat, b.Models.Chat)
	add("embedding model", a.Models.Embed, b.Models.Embed)
	if len(a.Models.Served) > 0 && len(b.Models.Served) > 0 {
		add("models the servers named", servedNames(a.Models.Served, false), servedNames(b.Models.Served, false))
		add("system fingerprints", servedNames(a.Models.Served, true), servedNames(b.Models.Served, true))
	}
	for _, n := range slices.Sorted(mapsKeys(union(a.Prompts, b.Prompts))) {
		add("prompt template "+n+" (SHA-256)", short(a.Prompts[n]), short(b.Prompts[n]))
	}
	if opts.settings {
		for _, d := range differences(a.Settings, b.Settings, func(s Setting) bool {
			return s.Effect == ChangesResult && s.Cmds&cmdRun != 0 && !slices.Contains(opts.ignore, s.Flag)
		}) {
			add("setting -"+d.Flag, d.Old, d.New)
		}
	}
	return out
}

func union(a, b map[string]string) map[string]string {
	u := map[string]string{}
	for k := range a {
		u[k] = ""
	}
	for k := range b {
		u[k] = ""
	}
	return u
}

func short(sum string) string {
	if len(sum) > 12 {
		return sum[:12]
	}
	return sum
}

// describe is the code version in one line.
func (c Code) describe() string {
	if c.Revision == "" {
		return ""
	}
	s := short(c.Revision)
	if c.Modified != nil && *c.Modified {
		s += " (modified)"
	}
	return s
}

// servedNames lists the models the replies named (or their
// fingerprints), sorted, without counts.
func servedNames(ss []llm.Served, fingerprints bool) string {
	var names []string
	for _, s := range ss {
		n := s.Requested + "→" + s.Model
		if fingerprints {
			n = s.Model + "@" + s.Fingerprint
		}
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// Short is the one-paragraph form of the record for reports.
func (p Provenance) Short() string {
	code := p.Code.describe()
	if code == "" {
		code = "revision not embedded"
	}
	parts := []string{
		"code " + code,
		p.Go,
		fmt.Sprintf("environment %s (%s; tasks %s)", p.Environment.Suite, cmp.Or(p.Environment.Version, "no version"), short(p.Environment.Tasks)),
		"chat " + p.Models.Chat,
	}
	if len(p.Models.Served) > 0 {
		parts = append(parts, "served "+servedNames(p.Models.Served, true))
	}
	if p.Models.Embed != "" {
		parts = append(parts, "embeddings "+p.Models.Embed)
	}
	parts = append(parts, fmt.Sprintf("%d prompt templates (set %s)", len(p.Prompts), short(p.PromptSet)))
	if p.Command == "eval" && p.Settings.Online == OnlineOn {
		parts = append(parts, "memory learned online during the evaluation (-online; saved in memory/<method>/)")
	}
	if len(p.Environment.Files) > 0 {
		var fs []string
		for _, f := range p.Environment.Files {
			fs = append(fs, filepath.Base(f.Path)+" "+short(f.SHA256))
		}
		parts = append(parts, "files "+strings.Join(fs, ", "))
	}
	return strings.Join(parts, "; ")
}

// ReadProvenance reads a provenance.json file.
func ReadProvenance(path string) (Provenance, error) {
	var p Provenance
	if err := readJSON(path, &p); err != nil {
		return p, err
	}
	if p.Format != ProvenanceFormat {
		return p, fmt.Errorf("%s: provenance format %d, want %d", path, p.Format, ProvenanceFormat)
	}
	return p, nil
}

// recordTraining writes the training's record to <run>/provenance.json.
// When the run directory holds the record of an earlier training that
// differs, the differences are returned (for a warning) and the earlier
// records are kept in Earlier.
func recordTraining(run string, p Provenance) ([]string, error) {
	path := filepath.Join(run, ProvenanceFile)
	prev, err := ReadProvenance(path)
	switch {
	case err == nil:
		p.Warnings = prev.Differences(p, compareOpts{settings: true})
		p.Earlier = prev.Earlier
		if len(p.Warnings) > 0 {
			prev.Earlier, prev.Warnings = nil, nil
			p.Earlier = append(p.Earlier, prev)
		}
	case !errors.Is(err, fs.ErrNotExist):
		// An unreadable record is kept aside, not lost.
		aside := path + ".unreadable"
		if rerr := os.Rename(path, aside); rerr != nil {
			return nil, fmt.Errorf("provenance: %w", errors.Join(err, rerr))
		}
		p.Warnings = []string{fmt.Sprintf("the earlier %s could not be read (%v); kept as %s", ProvenanceFile, err, aside)}
	}
	return p.Warnings, writeJSON(path, p)
}

// evalWarnings compares an evaluation's record with the training record of
// its run directory (when there is one): the code, Go, the modules, the
// environment, the models and the prompts; the settings are not compared
// (an evaluation's own settings name its directory, EvalOverrides).
func evalWarnings(run string, p Provenance) []string {
	train, err := ReadProvenance(filepath.Join(run, ProvenanceFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return []string{fmt.Sprintf("the run's training record cannot be read: %v", err)}
	}
	var out []string
	for _, d := range train.Differences(p, compareOpts{}) {
		out = append(out, "this evaluation differs from the run's training in "+d+" (training → evaluation)")
	}
	return out
}

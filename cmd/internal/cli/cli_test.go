package cli

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/samem/trainer/app"
)

// newSet binds cmd's settings on a new FlagSet over a fresh default
// configuration, writing to out.
func newSet(cmd app.Command, out *bytes.Buffer) (*flag.FlagSet, *app.Config) {
	cfg := app.Defaults()
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	fs.SetOutput(out)
	Bind(fs, &cfg, cmd)
	return fs, &cfg
}

// TestBindFollowsTable: each command's flags are the settings the table
// gives it (and -config where methods run), bound without running it.
func TestBindFollowsTable(t *testing.T) {
	for _, cmd := range []app.Command{app.CmdTrain, app.CmdEval, app.CmdSweep, app.CmdPlay} {
		fs, _ := newSet(cmd, new(bytes.Buffer))
		want := map[string]bool{}
		for _, s := range app.SettingsOf(cmd) {
			want[s.Flag] = true
			if f := fs.Lookup(s.Flag); f == nil || f.Usage != s.Usage {
				t.Errorf("command %d: -%s not bound as the table says", cmd, s.Flag)
			}
		}
		if cmd != app.CmdPlay {
			want[ConfigFlag] = true
		}
		fs.VisitAll(func(f *flag.Flag) {
			if !want[f.Name] {
				t.Errorf("command %d: -%s is bound but not in the table", cmd, f.Name)
			}
		})
	}
}

// TestUnknownFlagOneLine: a mistyped flag prints one line naming it and
// the closest valid flag, and how to get the full help; not the usage.
func TestUnknownFlagOneLine(t *testing.T) {
	for _, tc := range []struct{ arg, near string }{
		{"-alpah", "-alpha"},
		{"--workres", "-workers"},
		{"-thresh", "-threshold"},
		{"-iteration", "-iterations"},
		{"-clin-trial", "-clin-trials"},
	} {
		var out bytes.Buffer
		fs, _ := newSet(app.CmdTrain, &out)
		fs.Usage = func() { out.WriteString("FULL USAGE\n") }
		err := Parse(fs, []string{tc.arg, "1"}, app.CmdTrain)
		if err == nil || ParseCode(err) != ExitUsage {
			t.Fatalf("%s: %v, want a usage error", tc.arg, err)
		}
		got := out.String()
		want := "train: unknown flag -" + strings.TrimLeft(tc.arg, "-")
		if !strings.HasPrefix(got, want) || strings.Count(got, "\n") != 1 || !strings.Contains(got, "did you mean "+tc.near+"?") || !strings.Contains(got, "'train -h'") || strings.Contains(got, "FULL USAGE") {
			t.Errorf("%s printed %q; want one line naming %s and the help", tc.arg, got, tc.near)
		}
	}
	// -h still prints the full usage.
	var out bytes.Buffer
	fs, _ := newSet(app.CmdTrain, &out)
	fs.Usage = func() { out.WriteString("FULL USAGE\n") }
	if err := Parse(fs, []string{"-h"}, app.CmdTrain); !errors.Is(err, flag.ErrHelp) || out.String() != "FULL USAGE\n" || ParseCode(err) != ExitOK {
		t.Errorf("-h: %v, printed %q", err, out.String())
	}
}

// TestEnumerationsFailAtParse: an unknown value of an enumerated setting
// is refused while the flags are parsed, naming the flag and the values.
func TestEnumerationsFailAtParse(t *testing.T) {
	for _, tc := range []struct{ flag, value, known string }{
		{"env", "minecraft", "household, zmachine, jsonl or agentgym"},
		{"llm", "gpt", "offline, openai, local or replay"},
		{"embed", "replay", "offline, openai or local"},
		{"grammar", "0.5", "0.3 or 0.4"},
		{"interpreter", "frotz9", "zvm or dfrotz"},
		{"agentgym-kind", "webshop", "alfworld or sciworld"},
		{"ablation", "no-brain", "no-q, no-situation or no-decay"},
		{"task-order", "random", "shuffled or suite"},
		{"schedule", "hourly", "step, episode"},
		{"method", "telepathy", "samem"},
	} {
		var out bytes.Buffer
		fs, _ := newSet(app.CmdTrain, &out)
		err := Parse(fs, []string{"-" + tc.flag, tc.value}, app.CmdTrain)
		if err == nil || !strings.Contains(out.String(), "-"+tc.flag+": ") || !strings.Contains(out.String(), tc.known) || strings.Count(out.String(), "\n") != 1 {
			t.Errorf("-%s %s: %v, printed %q; want one line naming the flag and %s", tc.flag, tc.value, err, out.String(), tc.known)
		}
	}
	var out bytes.Buffer
	fs, cfg := newSet(app.CmdTrain, &out)
	if err := Parse(fs, []string{"-env", "zmachine", "-interpreter", "dfrotz", "-schedule", "episode", "-grammar", "0.4", "-agentgym-kind", "scienceworld"}, app.CmdTrain); err != nil {
		t.Fatal(err)
	}
	if cfg.Env.Kind != app.EnvZMachine || cfg.Env.Interpreter != app.InterpreterDfrotz || cfg.SAMem.Schedule != "episode" ||
		cfg.Env.Grammar != app.Grammar04 || cfg.Env.GymKind != app.GymScienceWorld {
		t.Errorf("parsed %+v", cfg.Env)
	}
}

// TestExperimentFile: -config sets the settings of a TOML or JSON file by
// their flag names; flags on the command line override it; a key of
// another command is left to it; an unknown key or a bad value is refused
// naming it.
func TestExperimentFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	toml := write("exp.toml", `# SAMem, a quick ablation kept in version control
run = "runs/alpha"
method = ["samem", "clin"]
alpha = 0.1
threshold = 0.9
no-forgetting = true
clin-trials = 3
env = "household"
world-seed = 7
timeout = "2m"
chat-url = ["http://a", "http://b"]
iterations = 4
per-type = 2
eval-per-type = 3
`)
	var out bytes.Buffer
	fs, cfg := newSet(app.CmdTrain, &out)
	if err := Parse(fs, []string{"-config", toml, "-alpha", "0.2"}, app.CmdTrain); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if cfg.Run != "runs/alpha" || strings.Join(cfg.Methods, ",") != "samem,clin" || cfg.SAMem.Alpha != 0.2 || cfg.SAMem.Threshold != 0.9 ||
		!cfg.SAMem.NoForgetting || cfg.CLIN.Trials != 3 || cfg.Env.WorldSeed != 7 || cfg.LLM.Timeout.String() != "2m0s" ||
		strings.Join(cfg.LLM.ChatURLs, ",") != "http://a,http://b" || cfg.Iterations != 4 || cfg.PerType != 2 || cfg.EvalPerType != app.PerTypeEnvDefault {
		t.Errorf("train from the file: %+v", cfg)
	}
	// eval reads the same file: iterations is train's, eval-per-type its own.
	fs, cfg = newSet(app.CmdEval, &out)
	if err := Parse(fs, []string{"-config", toml}, app.CmdEval); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if cfg.EvalPerType != 3 || cfg.PerType != app.Defaults().PerType || cfg.SAMem.Alpha != 0.1 {
		t.Errorf("eval from the file: eval per type %d, per type %d, alpha %v", cfg.EvalPerType, cfg.PerType, cfg.SAMem.Alpha)
	}
	if RunFlag([]string{"-config", toml}, "runs/default") != "runs/alpha" || RunFlag([]string{"-config", toml, "-run", "x"}, "d") != "x" {
		t.Error("RunFlag does not read the file's run, or the flag does not override it")
	}
	js := write("exp.json", `{"alpha": 0.3, "method": "samem", "max-steps": 12}`)
	fs, cfg = newSet(app.CmdTrain, &out)
	if err := Parse(fs, []string{"-config=" + js}, app.CmdTrain); err != nil || cfg.SAMem.Alpha != 0.3 || cfg.Env.MaxSteps != 12 {
		t.Errorf("JSON file: %v, alpha %v, max steps %d", err, cfg.SAMem.Alpha, cfg.Env.MaxSteps)
	}
	for _, tc := range []struct{ text, want string }{
		{`alpah = 0.1`, `unknown setting "alpah" (did you mean alpha?)`},
		{`env = "minecraft"`, `env = "minecraft": unknown environment`},
		{"[samem]\nalpha = 0.1", "samem: a table"},
		{`alpha = "x"`, `alpha = "x": parse error`},
		{`alpha = `, "exp.toml"},
		{`method = ["samem", ["clin"]]`, "a list holds plain values"},
	} {
		p := write("exp.toml", tc.text)
		out.Reset()
		fs, _ = newSet(app.CmdTrain, &out)
		err := Parse(fs, []string{"-config", p}, app.CmdTrain)
		if !errors.Is(err, app.ErrConfig) || !strings.Contains(out.String(), tc.want) || strings.Count(out.String(), "\n") != 1 {
			t.Errorf("file %q: %v, printed %q; want one line saying %q", tc.text, err, out.String(), tc.want)
		}
	}
	out.Reset()
	fs, _ = newSet(app.CmdTrain, &out)
	if err := Parse(fs, []string{"-config", filepath.Join(dir, "missing.toml")}, app.CmdTrain); !errors.Is(err, app.ErrConfig) || !strings.Contains(out.String(), "missing.toml") {
		t.Errorf("missing file: %v, %q", err, out.String())
	}
}

// FuzzExperiment: any bytes, as TOML or JSON, give values or an error,
// never a panic; a list's value is its plain values joined by commas.
func FuzzExperiment(f *testing.F) {
	f.Add([]byte("alpha = 0.1\nmethod = [\"samem\", \"clin\"]\n"), false)
	f.Add([]byte(`{"alpha": 0.1, "no-forgetting": true}`), true)
	f.Add([]byte("[samem]\nalpha = 1"), false)
	f.Fuzz(func(t *testing.T, b []byte, isJSON bool) {
		vals, err := parseExperiment(b, isJSON)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an error without a message")
			}
			return
		}
		for k, v := range vals {
			if _, err := experimentValue(v); err != nil {
				t.Fatalf("%s = %q: a value that does not render as itself: %v", k, v, err)
			}
		}
	})
}

package zmachine

import (
	"github.com/samem/trainer/internal/testenv"

	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/samem/trainer/envbridge"
)

// TestMain doubles as a fake interpreter when ZMACHINE_FAKE is set: the
// tests run this binary in place of dfrotz to make it misbehave.
func TestMain(m *testing.M) {
	if mode := os.Getenv("ZMACHINE_FAKE"); mode != "" {
		fakeInterpreter(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fakeInterpreter plays a broken interpreter:
//
//	noprompt: answers every line but never prints a prompt
//	silent:   answers with a prompt, but never answers "look"
//	flood:    answers every line with 4 MiB of text without a newline
func fakeInterpreter(mode string) {
	w := bufio.NewWriter(os.Stdout)
	in := bufio.NewScanner(os.Stdin)
	switch mode {
	case "noprompt":
		fmt.Fprint(w, "Welcome to a game with no prompt.\n")
	default:
		fmt.Fprint(w, "Welcome.\n\n>")
	}
	w.Flush()
	for in.Scan() {
		switch mode {
		case "noprompt":
			fmt.Fprintf(w, "You said %s.\n", in.Text())
		case "silent":
			if in.Text() == "look" {
				time.Sleep(time.Hour) // hang; "select {}" would die of the runtime's deadlock check
			}
			fmt.Fprint(w, "What?\n\n>")
		case "flood":
			chunk := strings.Repeat("x", 1<<10)
			for range 4 << 10 {
				w.WriteString(chunk)
			}
			w.WriteString("\n>")
		}
		w.Flush()
	}
}

// tinyGame compiles testdata/tiny.inf into a temporary directory.
func tinyGame(t testing.TB) string {
	t.Helper()
	needInterpreter(t)
	inform, err := exec.LookPath("inform6")
	testenv.Need(t, err == nil, "inform6 (apt-get install inform6-compiler inform6-library)")
	lib := "/usr/share/inform6/library"
	_, err = os.Stat(filepath.Join(lib, "parser.h"))
	testenv.Need(t, err == nil, "the Inform 6 library at "+lib+" (apt-get install inform6-library)")
	src, err := filepath.Abs("testdata/tiny.inf")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "tiny.z5")
	cmd := exec.Command(inform, "-v5", "+"+lib, src, out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("inform6: %v\n%s", err, b)
	}
	return out
}

func tinySuite(t *testing.T, cfg Config) (*Suite, envbridge.Task) {
	t.Helper()
	game := tinyGame(t)
	noChildrenLeft(t)
	s, err := NewSuite(ctxT(t), cfg, game)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := s.Tasks(envbridge.SplitTrain)
	if err != nil || len(ts) != 1 {
		t.Fatalf("Tasks = %v, %v", ts, err)
	}
	return s, ts[0]
}

func openReset(t *testing.T, s *Suite, task envbridge.Task) (*Env, envbridge.Observation) {
	t.Helper()
	env, err := s.OpenEnv(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	obs, err := env.Reset(ctxT(t), task)
	if err != nil {
		t.Fatal(err)
	}
	return env, obs
}

type step struct {
	action string
	want   envbridge.StepResult // Text is a substring that must appear
}

func play(t *testing.T, env *Env, steps []step) {
	t.Helper()
	for i, st := range steps {
		got, err := env.Step(ctxT(t), st.action)
		if err != nil {
			t.Fatalf("step %d %q: %v", i, st.action, err)
		}
		if !strings.Contains(got.Text, st.want.Text) {
			t.Errorf("step %d %q: text %q, want it to contain %q", i, st.action, got.Text, st.want.Text)
		}
		if strings.Contains(got.Text, "score has just gone") {
			t.Errorf("step %d %q: score notice left in %q", i, st.action, got.Text)
		}
		gotFlags := [4]bool{got.Done, got.Won, got.Lost, got.Truncated}
		wantFlags := [4]bool{st.want.Done, st.want.Won, st.want.Lost, st.want.Truncated}
		if got.Reward != st.want.Reward || got.Score != st.want.Score || got.MaxScore != 10 || gotFlags != wantFlags {
			t.Errorf("step %d %q = reward %v score %v/%v done,won,lost,trunc %v; want reward %v score %v/10 %v",
				i, st.action, got.Reward, got.Score, got.MaxScore, gotFlags, st.want.Reward, st.want.Score, wantFlags)
		}
	}
}

func TestTinyGame(t *testing.T) {
	s, task := tinySuite(t, Config{MaxSteps: 5})
	if task.Goal != "Play the game and raise your score as high as you can (the maximum is 10 points)." {
		t.Errorf("goal = %q", task.Goal)
	}
	if s.Name() != "zmachine:tiny" || s.Style() != envbridge.StyleFiction {
		t.Errorf("Name, Style = %q, %q", s.Name(), s.Style())
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"win", []step{
			{"take coin", envbridge.StepResult{Observation: envbridge.Observation{Text: "Taken."}, Reward: 5, Score: 5}},
			{"north", envbridge.StepResult{Observation: envbridge.Observation{Text: "The vault."}, Score: 5}},
			{"push button", envbridge.StepResult{Observation: envbridge.Observation{Text: "You are rich."}, Reward: 5, Score: 10, Done: true, Won: true}},
		}},
		{"lose", []step{
			{"take coin", envbridge.StepResult{Observation: envbridge.Observation{Text: "Taken."}, Reward: 5, Score: 5}},
			{"enter pit", envbridge.StepResult{Observation: envbridge.Observation{Text: "You fall"}, Score: 5, Done: true, Lost: true}},
		}},
		{"truncate", []step{
			{"wait", envbridge.StepResult{Observation: envbridge.Observation{Text: "Time passes."}}},
			{"xyzzy", envbridge.StepResult{Observation: envbridge.Observation{Text: ""}}},
			{"jump", envbridge.StepResult{}},
			{"take coin", envbridge.StepResult{Observation: envbridge.Observation{Text: "Taken."}, Reward: 5, Score: 5}},
			{"drop coin", envbridge.StepResult{Observation: envbridge.Observation{Text: "Dropped."}, Score: 5, Done: true, Truncated: true}},
		}},
		{"restart in game", []step{
			{"take coin", envbridge.StepResult{Observation: envbridge.Observation{Text: "Taken."}, Reward: 5, Score: 5}},
			{"restart", envbridge.StepResult{Observation: envbridge.Observation{Text: "restart?"}, Score: 5}},
			{"yes", envbridge.StepResult{Observation: envbridge.Observation{Text: "treasure in the vault"}, Reward: -5}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, obs := openReset(t, s, task)
			if !strings.Contains(obs.Text, "You want the treasure in the vault.") || strings.HasSuffix(obs.Text, ">") {
				t.Fatalf("opening %q", obs.Text)
			}
			play(t, env, tt.steps)
			last := tt.steps[len(tt.steps)-1].want
			if _, err := env.Step(ctxT(t), "look"); last.Done != errors.Is(err, envbridge.ErrEpisodeOver) {
				t.Errorf("Step after the last: %v (episode done %v)", err, last.Done)
			}
			// A new episode in the same Env starts over with the same text.
			obs2, err := env.Reset(ctxT(t), task)
			if err != nil || obs2.Text != obs.Text {
				t.Fatalf("second Reset = %q, %v; want %q", obs2.Text, err, obs.Text)
			}
		})
	}
}

func TestSaveRestore(t *testing.T) {
	s, task := tinySuite(t, Config{})
	env, _ := openReset(t, s, task)
	play(t, env, []step{{"take coin", envbridge.StepResult{Observation: envbridge.Observation{Text: "Taken."}, Reward: 5, Score: 5}}})
	if err := env.Save(ctxT(t), "a"); err != nil {
		t.Fatal(err)
	}
	if err := env.Save(ctxT(t), "a"); err != nil {
		t.Fatalf("second save over the same file: %v", err)
	}
	if err := env.Save(ctxT(t), "../x"); !errors.Is(err, ErrBadSaveName) {
		t.Errorf("Save(../x) = %v, want ErrBadSaveName", err)
	}
	play(t, env, []step{{"enter pit", envbridge.StepResult{Observation: envbridge.Observation{Text: "You fall"}, Score: 5, Done: true, Lost: true}}})
	if err := env.Restore(ctxT(t), "a"); err != nil {
		t.Fatal(err)
	}
	play(t, env, []step{
		{"north", envbridge.StepResult{Observation: envbridge.Observation{Text: "The vault."}, Score: 5}},
		{"push button", envbridge.StepResult{Observation: envbridge.Observation{Text: "rich"}, Reward: 5, Score: 10, Done: true, Won: true}},
	})
	if err := env.Restore(ctxT(t), "missing"); err == nil {
		t.Errorf("Restore(missing): no error")
	}
	dir := env.dir
	if err := env.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("save directory %s left after Close: %v", dir, err)
	}
	if err := env.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	if _, err := env.Reset(ctxT(t), task); !errors.Is(err, envbridge.ErrClosed) {
		t.Errorf("Reset after Close = %v, want ErrClosed", err)
	}
}

// TestKilledInterpreter: an interpreter killed mid-episode ends the episode
// with an error; the next Reset starts a new one and play goes on.
func TestKilledInterpreter(t *testing.T) {
	s, task := tinySuite(t, Config{Interpreter: "dfrotz"})
	env, _ := openReset(t, s, task)
	pid := env.pid()
	if pid <= 0 {
		t.Fatalf("no interpreter process (pid %d)", pid)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_, err := env.Step(ctxT(t), "take coin")
	if !errors.Is(err, ErrInterpreterDied) {
		t.Fatalf("Step after kill = %v, want ErrInterpreterDied", err)
	}
	if _, err := env.Step(ctxT(t), "take coin"); !errors.Is(err, envbridge.ErrEpisodeOver) {
		t.Fatalf("second Step = %v, want ErrEpisodeOver", err)
	}
	if _, err := env.Reset(ctxT(t), task); err != nil {
		t.Fatal(err)
	}
	if env.pid() == pid {
		t.Fatalf("same interpreter %d after Reset", pid)
	}
	play(t, env, []step{{"take coin", envbridge.StepResult{Observation: envbridge.Observation{Text: "Taken."}, Reward: 5, Score: 5}}})
}

func TestCancelKillsInterpreter(t *testing.T) {
	s, task := tinySuite(t, Config{Interpreter: "dfrotz"})
	env, _ := openReset(t, s, task)
	pid := env.pid()
	if pid <= 0 {
		t.Fatalf("no interpreter process (pid %d)", pid)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := env.Step(ctx, "wait"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Step(cancelled) = %v", err)
	}
	if env.pid() != 0 || syscall.Kill(pid, 0) == nil {
		t.Fatalf("interpreter %d still running after cancel", pid)
	}
}

func TestUnknownTaskAndSplit(t *testing.T) {
	noChildrenLeft(t)
	s, err := NewSuite(ctxT(t), Config{Unseen: []string{"tiny"}}, tinyGame(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Splits(); len(got) != 1 || got[0] != envbridge.SplitValidUnseen {
		t.Errorf("Splits = %v", got)
	}
	ts, err := s.Tasks(envbridge.SplitValidUnseen)
	if err != nil || len(ts) != 1 || ts[0].ID != "valid_unseen/tiny" {
		t.Fatalf("Tasks(valid_unseen) = %v, %v", ts, err)
	}
	task := ts[0]
	if _, err := s.Tasks(envbridge.SplitTrain); !errors.Is(err, envbridge.ErrUnknownSplit) {
		t.Errorf("Tasks(train) = %v", err)
	}
	if _, err := s.Tasks("test"); !errors.Is(err, envbridge.ErrUnknownSplit) {
		t.Errorf("Tasks(test) = %v", err)
	}
	env, err := s.Open(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	if _, err := env.Step(ctxT(t), "look"); !errors.Is(err, envbridge.ErrEpisodeOver) {
		t.Errorf("Step before Reset = %v", err)
	}
	task.ID = "nope"
	if _, err := env.Reset(ctxT(t), task); !errors.Is(err, envbridge.ErrUnknownTask) {
		t.Errorf("Reset(nope) = %v", err)
	}
}

// fakeSuite runs this test binary as the interpreter in the given mode.
func fakeSuite(t *testing.T, mode string, cfg Config) (*Suite, error) {
	t.Helper()
	noChildrenLeft(t)
	t.Setenv("ZMACHINE_FAKE", mode)
	game := filepath.Join(t.TempDir(), "fake.z5")
	if err := os.WriteFile(game, []byte("not a story"), 0o644); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Interpreter = exe
	cfg.Args = []string{}
	return NewSuite(ctxT(t), cfg, game)
}

func TestFakeInterpreters(t *testing.T) {
	t.Run("no prompt: deadline fall-back", func(t *testing.T) {
		s, err := fakeSuite(t, "noprompt", Config{QuietTime: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		ts, _ := s.Tasks(envbridge.SplitTrain)
		env, obs := openReset(t, s, ts[0])
		if obs.Text != "Welcome to a game with no prompt." {
			t.Errorf("opening %q", obs.Text)
		}
		res, err := env.Step(ctxT(t), "hello\nthere")
		if err != nil || res.Text != "You said hello there." {
			t.Errorf("Step = %q, %v", res.Text, err)
		}
	})
	t.Run("silent: timeout kills", func(t *testing.T) {
		if testing.Short() {
			t.Skip("waits for the 10 s turn deadline (runs without -short)")
		}
		// The fake hangs for an hour on "look" and answers everything else
		// at once, so a 10 s deadline separates the two whatever the load
		// (300 ms could expire while a busy machine started the child).
		s, err := fakeSuite(t, "silent", Config{TurnTimeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		ts, _ := s.Tasks(envbridge.SplitTrain)
		env, _ := openReset(t, s, ts[0])
		pid := env.pid()
		if _, err := env.Step(ctxT(t), "look"); !errors.Is(err, ErrTurnTimeout) {
			t.Fatalf("Step = %v, want ErrTurnTimeout", err)
		}
		if syscall.Kill(pid, 0) == nil {
			t.Errorf("interpreter %d alive after timeout", pid)
		}
	})
	t.Run("flood: output capped", func(t *testing.T) {
		s, err := fakeSuite(t, "flood", Config{MaxTurnBytes: 1 << 16})
		if err != nil {
			t.Fatal(err)
		}
		ts, _ := s.Tasks(envbridge.SplitTrain)
		env, _ := openReset(t, s, ts[0])
		res, err := env.Step(ctxT(t), "look")
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Text) > 1<<16 || !strings.Contains(res.Text, "output truncated") {
			t.Errorf("flood observation: %d bytes, ends %q", len(res.Text), res.Text[max(0, len(res.Text)-60):])
		}
		if _, err := env.Step(ctxT(t), "look"); err != nil {
			t.Errorf("step after a flood: %v", err)
		}
	})
}

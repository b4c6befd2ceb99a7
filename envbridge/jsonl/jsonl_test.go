package jsonl

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/envtest"
)

// TestMain doubles as the fake environment program when JSONL_FAKE is set.
func TestMain(m *testing.M) {
	if mode := os.Getenv("JSONL_FAKE"); mode != "" {
		fakeEnv(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fakeEnv follows PROTOCOL.md exactly: a counter game. Task "count-N" is won
// by saying "next" N times; "give up" loses. In a misbehaving mode it breaks
// the protocol at the first step:
//
//	garbage: answers with a line that is not JSON
//	die:     exits
//	hang:    never answers
//	long:    answers with a 1 MiB line
//	badid:   answers with the wrong id
func fakeEnv(mode string) {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	reply := func(id int64, result any, code, msg string) {
		r := map[string]any{"id": id}
		if code != "" {
			r["error"] = map[string]string{"code": code, "message": msg}
		} else {
			r["result"] = result
		}
		b, _ := json.Marshal(r)
		out.Write(append(b, '\n'))
		out.Flush()
	}
	tasks := map[string][]envbridge.Task{
		"train":      {{ID: "count-2", Type: "count", Goal: "say next twice", Seed: 1, MaxSteps: 10}, {ID: "count-3", Type: "count", Goal: "say next 3 times", Seed: 1, MaxSteps: 10}},
		"valid_seen": {{ID: "count-4", Type: "count", Goal: "say next 4 times", Seed: 1, MaxSteps: 10}},
	}
	var task envbridge.Task
	var n, target, steps int
	active := false
	for in.Scan() {
		var req struct {
			ID     int64           `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			reply(0, nil, "bad_request", err.Error())
			continue
		}
		switch req.Method {
		case "hello":
			reply(req.ID, map[string]any{"version": 1, "name": "counter", "style": "household",
				"splits": []string{"train", "valid_seen"}, "capabilities": []string{"admissible"}}, "", "")
		case "tasks":
			var p struct{ Split string }
			json.Unmarshal(req.Params, &p)
			ts, ok := tasks[p.Split]
			if !ok {
				reply(req.ID, nil, "unknown_split", p.Split)
				continue
			}
			reply(req.ID, map[string]any{"tasks": ts}, "", "")
		case "reset":
			var p struct{ Task envbridge.Task }
			json.Unmarshal(req.Params, &p)
			if _, err := fmt.Sscanf(p.Task.ID, "count-%d", &n); err != nil {
				reply(req.ID, nil, "unknown_task", p.Task.ID)
				continue
			}
			task, steps, active, target = p.Task, 0, true, n
			reply(req.ID, map[string]any{"text": "Say next " + fmt.Sprint(n) + " times.", "admissible": []string{"next", "give up"}}, "", "")
		case "step":
			switch mode {
			case "garbage":
				out.WriteString("Traceback (most recent call last): oops\n")
				out.Flush()
				continue
			case "die":
				os.Exit(3)
			case "hang":
				time.Sleep(time.Hour) // hang; "select {}" would die of the runtime's deadlock check
			case "long":
				out.WriteString(strings.Repeat("x", 1<<20) + "\n")
				out.Flush()
				continue
			case "badid":
				reply(req.ID+7, map[string]any{"text": "?"}, "", "")
				continue
			}
			if !active {
				reply(req.ID, nil, "episode_over", "no episode")
				continue
			}
			var p struct{ Action string }
			json.Unmarshal(req.Params, &p)
			steps++
			r := map[string]any{"admissible": []string{"next", "give up"}, "max_score": target}
			switch p.Action {
			case "next":
				r["text"], r["reward"] = "Counted.", 1
				n--
			case "give up":
				r["text"], r["done"], r["lost"] = "You gave up.", true, true
			default:
				r["text"] = "Say next."
			}
			if n == 0 {
				r["done"], r["won"] = true, true
			} else if steps >= task.MaxSteps && r["done"] == nil {
				r["done"], r["truncated"] = true, true
			}
			if r["done"] == true {
				active = false
			}
			r["score"] = target - n
			reply(req.ID, r, "", "")
		case "close":
			reply(req.ID, map[string]any{}, "", "")
			return
		default:
			reply(req.ID, nil, "bad_request", "unknown method "+req.Method)
		}
	}
}

func fakeSuite(t *testing.T, mode string, cfg Config) *Suite {
	t.Helper()
	t.Setenv("JSONL_FAKE", mode)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Command = []string{exe}
	s, err := NewSuite(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConformance(t *testing.T) {
	s := fakeSuite(t, "ok", Config{})
	envtest.Run(t, s, envtest.Options{Policy: func(int, envbridge.Observation) string { return "next" }})
}

func TestSuite(t *testing.T) {
	s := fakeSuite(t, "ok", Config{})
	if s.Name() != "jsonl:counter" || s.Style() != envbridge.StyleHousehold {
		t.Errorf("Name, Style = %q, %q", s.Name(), s.Style())
	}
	ts, err := s.Tasks("train")
	if err != nil || len(ts) != 2 || ts[1].ID != "count-3" || ts[1].Split != "train" {
		t.Fatalf("Tasks(train) = %+v, %v", ts, err)
	}
	ctx := context.Background()
	env, err := s.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	obs, err := env.Reset(ctx, ts[0])
	if err != nil || obs.Text != "Say next 2 times." || len(obs.Admissible) != 2 {
		t.Fatalf("Reset = %+v, %v", obs, err)
	}
	r1, err := env.Step(ctx, "next")
	if err != nil || r1.Reward != 1 || r1.Done {
		t.Fatalf("Step 1 = %+v, %v", r1, err)
	}
	r2, err := env.Step(ctx, "next")
	if err != nil || !r2.Won || !r2.Done || r2.Score != 2 || r2.MaxScore != 2 {
		t.Fatalf("Step 2 = %+v, %v", r2, err)
	}
	bad := ts[0]
	bad.ID = "nope"
	if _, err := env.Reset(ctx, bad); !errors.Is(err, envbridge.ErrUnknownTask) {
		t.Errorf("Reset(nope) = %v, want ErrUnknownTask", err)
	}
	var perr *Error
	if _, err := env.Reset(ctx, bad); !errors.As(err, &perr) || perr.Code != CodeUnknownTask {
		t.Errorf("Reset(nope) = %v, want an *Error with code unknown_task", err)
	}
	// An error object leaves the process usable.
	if _, err := env.Reset(ctx, ts[1]); err != nil {
		t.Errorf("Reset after an error object: %v", err)
	}
}

// TestBrokenEnvironments: each broken answer ends the episode with an error
// that says what happened, and the next Reset starts a new process.
func TestBrokenEnvironments(t *testing.T) {
	tests := []struct {
		mode string
		cfg  Config
		want error
		text string // the error must contain it
	}{
		{"garbage", Config{}, ErrProtocol, `"Traceback (most recent call last): oops"`},
		{"die", Config{}, ErrDied, "exit status 3"},
		// The fake hangs for an hour on a step and answers a reset at once:
		// 6 s tells the two apart whatever the load (300 ms could expire
		// while a busy machine started the child).
		{"hang", Config{RequestTimeout: 6 * time.Second}, ErrDied, "no answer"},
		{"long", Config{MaxLineBytes: 1 << 16}, ErrProtocol, `"xxxxxxxx`},
		{"badid", Config{}, ErrProtocol, "response id"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			if tt.mode == "hang" && testing.Short() {
				t.Skip("waits twice for the request deadline (runs without -short)")
			}
			s := fakeSuite(t, tt.mode, tt.cfg)
			ts, _ := s.Tasks("train")
			ctx := context.Background()
			env, err := s.Open(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer env.Close()
			je := env.(*Env)
			for round := range 2 {
				if _, err := env.Reset(ctx, ts[0]); err != nil {
					t.Fatalf("round %d: Reset: %v", round, err)
				}
				pid := je.c.cmd.Process.Pid
				_, err := env.Step(ctx, "next")
				if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.text) {
					t.Fatalf("round %d: Step = %v, want %v containing %q", round, err, tt.want, tt.text)
				}
				if len(err.Error()) > 1000 {
					t.Errorf("error of %d bytes: the quote is not cut", len(err.Error()))
				}
				if _, err := env.Step(ctx, "next"); !errors.Is(err, envbridge.ErrEpisodeOver) {
					t.Errorf("round %d: Step after the failure = %v, want ErrEpisodeOver", round, err)
				}
				if processAlive(pid) {
					t.Errorf("round %d: process %d alive after the failure", round, pid)
				}
			}
		})
	}
}

func processAlive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// A zombie is dead but not reaped: that would be a leak too.
	return !strings.Contains(string(b), ") X ")
}

func TestNoCommand(t *testing.T) {
	if _, err := NewSuite(context.Background(), Config{}); !errors.Is(err, ErrNoCommand) {
		t.Errorf("NewSuite() = %v, want ErrNoCommand", err)
	}
}

func TestDecodeResponse(t *testing.T) {
	tests := []struct {
		line string
		ok   bool
	}{
		{`{"id":1,"result":{"text":"hi"}}`, true},
		{`{"id":2,"error":{"code":"unknown_task","message":"x"}}`, true},
		{`{"id":3}`, false},
		{`{"id":4,"result":{},"error":{"code":"internal","message":""}}`, false},
		{`{"id":5,"error":{"message":"no code"}}`, false},
		{`{"id":6,"result":null}`, false},
		{`not json`, false},
		{``, false},
	}
	for _, tt := range tests {
		_, err := DecodeResponse([]byte(tt.line))
		if (err == nil) != tt.ok {
			t.Errorf("DecodeResponse(%q) = %v, want ok %v", tt.line, err, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrProtocol) {
			t.Errorf("DecodeResponse(%q) = %v, want ErrProtocol", tt.line, err)
		}
	}
}

func FuzzDecodeResponse(f *testing.F) {
	for _, s := range []string{`{"id":1,"result":{"text":"hi","admissible":["a"]}}`, `{"id":2,"error":{"code":"episode_over","message":"x"}}`, `{"id":"x"}`, `[1,2]`, strings.Repeat("{", 1000)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		r, err := DecodeResponse(line)
		if err != nil {
			if !errors.Is(err, ErrProtocol) || len(err.Error()) > 4*maxQuote+300 {
				t.Fatalf("error %v", err)
			}
			return
		}
		if (r.Error == nil) == (len(r.Result) == 0) {
			t.Fatalf("decoded %q to %+v", line, r)
		}
		var res envbridge.StepResult
		_ = json.Unmarshal(r.Result, &res)
	})
}

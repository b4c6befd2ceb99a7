package faults

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/samem/trainer/envbridge"
)

// EnvFlag is the first argument that turns a test binary into the fake
// JSON-lines environment (see EnvMain).
const EnvFlag = "-faults.env"

// EnvMain runs the fake environment and exits when the program was started
// by EnvCommand; otherwise it returns at once. Call it first in TestMain:
//
//	func TestMain(m *testing.M) { faults.EnvMain(); os.Exit(m.Run()) }
func EnvMain() {
	if len(os.Args) < 2 || os.Args[1] != EnvFlag {
		return
	}
	opts := map[string]string{}
	for _, a := range os.Args[2:] {
		k, v, _ := strings.Cut(a, "=")
		opts[k] = v
	}
	runEnv(opts)
	os.Exit(0)
}

// EnvOptions configure the fake environment.
type EnvOptions struct {
	// Tasks are the ids of the train split. An id is "<kind>-<n>": the task
	// is won by n "next" actions. Kinds: "ok" behaves; "crash" exits (status 3)
	// at the first step; "hang" never answers the first step; "garbage"
	// answers it with a line that is not JSON; "long" answers it with one
	// line of LongBytes bytes. valid_unseen holds "ok-2" and "ok-3".
	Tasks []string
	// PIDDir, when set, receives an empty file named after the pid of every
	// environment process started, so a test can count restarts and check
	// that none is left running.
	PIDDir string
	// EnvDump, when set, is a file each process writes its environment to
	// (one variable a line), to check what a child inherits.
	EnvDump string
	// LongBytes is the length of a "long" answer (default 64 MiB).
	LongBytes int
}

// EnvCommand is the command line (program and arguments, no shell) that
// runs the fake environment in this test binary; its TestMain must call
// EnvMain.
func EnvCommand(o EnvOptions) []string {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	cmd := []string{exe, EnvFlag, "tasks=" + strings.Join(o.Tasks, ",")}
	if o.PIDDir != "" {
		cmd = append(cmd, "pids="+o.PIDDir)
	}
	if o.EnvDump != "" {
		cmd = append(cmd, "envdump="+o.EnvDump)
	}
	if o.LongBytes > 0 {
		cmd = append(cmd, "long="+strconv.Itoa(o.LongBytes))
	}
	return cmd
}

// Started lists the pids recorded in an EnvOptions.PIDDir.
func Started(dir string) []int {
	ents, _ := os.ReadDir(dir)
	var out []int
	for _, e := range ents {
		if p, err := strconv.Atoi(strings.TrimPrefix(e.Name(), "pid-")); err == nil {
			out = append(out, p)
		}
	}
	return out
}

func runEnv(opts map[string]string) {
	if d := opts["pids"]; d != "" {
		os.WriteFile(filepath.Join(d, fmt.Sprintf("pid-%d", os.Getpid())), nil, 0o644)
	}
	if p := opts["envdump"]; p != "" {
		f, err := os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintf(f, "# pid %d\n%s\n", os.Getpid(), strings.Join(os.Environ(), "\n"))
			f.Close()
		}
	}
	long := 64 << 20
	if n, err := strconv.Atoi(opts["long"]); err == nil && n > 0 {
		long = n
	}
	var train []envbridge.Task
	for _, id := range strings.Split(opts["tasks"], ",") {
		if id != "" {
			kind, _, _ := strings.Cut(id, "-")
			train = append(train, envbridge.Task{ID: id, Type: kind, Goal: "say next until the counter is done", MaxSteps: 8})
		}
	}
	splits := map[string][]envbridge.Task{
		envbridge.SplitTrain:       train,
		envbridge.SplitValidUnseen: {{ID: "ok-2", Type: "ok", Goal: "say next until the counter is done", MaxSteps: 8}, {ID: "ok-3", Type: "ok", Goal: "say next until the counter is done", MaxSteps: 8}},
	}
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
	var kind string
	var left, steps, max int
	active := false
	acts := []string{"next", "wait", "give up"}
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
			reply(req.ID, map[string]any{"version": 1, "name": "faults", "style": "household",
				"splits": []string{envbridge.SplitTrain, envbridge.SplitValidUnseen}, "capabilities": []string{"admissible"}}, "", "")
		case "tasks":
			var p struct{ Split string }
			json.Unmarshal(req.Params, &p)
			ts, ok := splits[p.Split]
			if !ok {
				reply(req.ID, nil, "unknown_split", p.Split)
				continue
			}
			reply(req.ID, map[string]any{"tasks": ts}, "", "")
		case "reset":
			var p struct{ Task envbridge.Task }
			json.Unmarshal(req.Params, &p)
			k, n, ok := strings.Cut(p.Task.ID, "-")
			target, err := strconv.Atoi(n)
			if !ok || err != nil || target < 1 {
				reply(req.ID, nil, "unknown_task", p.Task.ID)
				continue
			}
			kind, left, steps, max, active = k, target, 0, p.Task.MaxSteps, true
			reply(req.ID, map[string]any{"text": fmt.Sprintf("The counter shows %d.", left), "admissible": acts}, "", "")
		case "step":
			switch kind {
			case "crash":
				os.Exit(3)
			case "hang":
				select {}
			case "garbage":
				out.WriteString("Traceback (most recent call last): the environment fell over\n")
				out.Flush()
				continue
			case "long":
				chunk := strings.Repeat("x", 1<<16)
				for w := 0; w < long; w += len(chunk) {
					out.WriteString(chunk)
				}
				out.WriteString("\n")
				out.Flush()
				continue
			}
			if !active {
				reply(req.ID, nil, "episode_over", "no episode")
				continue
			}
			var p struct{ Action string }
			json.Unmarshal(req.Params, &p)
			steps++
			r := map[string]any{"admissible": acts, "reward": 0}
			switch p.Action {
			case "next":
				left--
				r["text"], r["reward"] = fmt.Sprintf("The counter shows %d.", left), 1
			case "give up":
				r["text"], r["done"], r["lost"] = "You gave up.", true, true
			default:
				r["text"] = fmt.Sprintf("Nothing happens. The counter shows %d.", left)
			}
			if left == 0 {
				r["done"], r["won"] = true, true
			} else if steps >= max && r["done"] == nil {
				r["done"], r["truncated"] = true, true
			}
			if r["done"] == true {
				active = false
			}
			reply(req.ID, r, "", "")
		case "close":
			reply(req.ID, map[string]any{}, "", "")
			return
		default:
			reply(req.ID, nil, "bad_request", "unknown method "+req.Method)
		}
	}
}

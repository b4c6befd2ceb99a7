package local_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/samem/trainer/internal/testenv"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/local"
	"github.com/samem/trainer/llm/openai"
)

// needInstalled skips (fails in CI) unless node and npm are here and role
// is installed in the default folder (`make local-models` installs both).
func needInstalled(t *testing.T, role local.Role) string {
	t.Helper()
	testenv.Need(t, local.Tools() == nil, "node and npm (Debian: apt-get install nodejs npm)")
	dir, err := local.DefaultDir()
	if err != nil {
		t.Fatal(err)
	}
	testenv.Need(t, local.Installed(dir, role), fmt.Sprintf("the local %s model in %s (make local-models)", role, dir))
	return dir
}

func gone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// waitGone polls for a process to disappear, for up to a minute (the
// verdict does not hang on a short deadline: a live process fails only
// after a minute).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for i := 0; i < 600; i++ {
		if gone(pid) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("process %d still runs", pid)
}

func cos(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// TestEmbedServer: the USE server answers through the same client as any
// OpenAI-compatible server: 512-dimensional unit vectors, a paraphrase
// closer than an unrelated sentence, usage counted in the meter, an empty
// text embedded, and no process left after Close.
func TestEmbedServer(t *testing.T) {
	if testing.Short() {
		t.Skip("local-model test (runs without -short)")
	}
	dir := needInstalled(t, local.Embed)
	ctx := context.Background()
	srv, err := local.Start(ctx, local.Embed, local.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if !strings.HasPrefix(srv.URL, "http://127.0.0.1:") || !strings.HasSuffix(srv.URL, "/v1") {
		t.Fatalf("URL %q: want a loopback /v1 URL", srv.URL)
	}
	meter := llm.NewMeter(nil)
	c, err := openai.New(openai.Config{EmbedModel: local.EmbedModel, EmbedBaseURLs: []string{srv.URL}, ChatBaseURLs: []string{srv.URL}, EmbedDim: local.EmbedDim, Meter: meter})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := c.Embed(ctx, []string{"the apple is in the fridge", "there is an apple inside the refrigerator", "the weather is cold in winter", ""})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 4 || len(vs[0]) != local.EmbedDim {
		t.Fatalf("got %d vectors of %d dimensions, want 4 of %d", len(vs), len(vs[0]), local.EmbedDim)
	}
	para, unrelated := cos(vs[0], vs[1]), cos(vs[0], vs[2])
	t.Logf("cosine: paraphrase %.3f, unrelated %.3f", para, unrelated)
	if para < 0.6 || unrelated > 0.4 {
		t.Errorf("paraphrase %.3f (want >= 0.6), unrelated %.3f (want <= 0.4)", para, unrelated)
	}
	rep := meter.Report()
	if rep.Total.Calls != 1 || rep.Total.PromptTokens < 15 {
		t.Errorf("meter: %d calls, %d prompt tokens; want 1 call and the texts' tokens", rep.Total.Calls, rep.Total.PromptTokens)
	}
	pid := srv.Pid()
	srv.Close()
	waitGone(t, pid)
}

// TestServerDiesWithParent: a process that started a server and was then
// killed with SIGKILL (no Close, no deferred code) leaves no server behind.
func TestServerDiesWithParent(t *testing.T) {
	if testing.Short() {
		t.Skip("local-model test: starts and kills a local model server (runs without -short)")
	}
	if os.Getenv("LOCAL_TEST_CHILD") == "1" {
		dir, _ := local.DefaultDir()
		srv, err := local.Start(context.Background(), local.Embed, local.Options{Dir: dir})
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println("pid", srv.Pid())
		time.Sleep(10 * time.Minute)
		return
	}
	needInstalled(t, local.Embed)
	cmd := exec.Command(os.Args[0], "-test.run", "^TestServerDiesWithParent$")
	cmd.Env = append(os.Environ(), "LOCAL_TEST_CHILD=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	buf := make([]byte, 256)
	n, _ := out.Read(buf)
	line := strings.TrimSpace(string(buf[:n]))
	pidText, ok := strings.CutPrefix(line, "pid ")
	if !ok {
		t.Fatalf("child said %q", line)
	}
	pid, err := strconv.Atoi(pidText)
	if err != nil {
		t.Fatal(err)
	}
	if gone(pid) {
		t.Fatalf("server %d not running before the kill", pid)
	}
	cmd.Process.Kill()
	cmd.Wait()
	waitGone(t, pid)
}

func TestParseListening(t *testing.T) {
	for line, want := range map[string]string{
		"listening http://127.0.0.1:8080": "http://127.0.0.1:8080",
		"listening http://127.0.0.1:1":    "http://127.0.0.1:1",
	} {
		got, err := local.ParseListening(line)
		if err != nil || got != want {
			t.Errorf("%q: %q, %v; want %q", line, got, err, want)
		}
	}
	for _, line := range []string{"", "listening http://10.0.0.1:80", "listening http://127.0.0.1:", "listening http://127.0.0.1:0", "listening http://127.0.0.1:99999", "listening http://127.0.0.1:08", "listening http://127.0.0.1:80/x", "Error: cannot find module"} {
		if got, err := local.ParseListening(line); err == nil {
			t.Errorf("%q: accepted as %q", line, got)
		}
	}
}

func FuzzParseListening(f *testing.F) {
	f.Add("listening http://127.0.0.1:8080")
	f.Add("listening http://127.0.0.1:")
	f.Fuzz(func(t *testing.T, line string) {
		u, err := local.ParseListening(line)
		if err != nil {
			return
		}
		rest, ok := strings.CutPrefix(u, "http://127.0.0.1:")
		p, perr := strconv.Atoi(rest)
		if !ok || perr != nil || p < 1 || p > 65535 {
			t.Fatalf("%q accepted as %q", line, u)
		}
	})
}

// TestOptionsChecked: bad options are refused with a message naming them.
func TestOptionsChecked(t *testing.T) {
	for _, o := range []local.Options{{Dir: t.TempDir(), Threads: -1}, {Dir: t.TempDir(), Context: 10}, {Dir: t.TempDir(), MaxTokens: 5000}} {
		if _, err := local.Install(context.Background(), local.Embed, o); err == nil || !strings.Contains(err.Error(), "local model") {
			t.Errorf("%+v: %v, want an error naming the option", o, err)
		}
	}
	if _, err := local.Install(context.Background(), "vision", local.Options{Dir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "vision") {
		t.Errorf("unknown role: %v", err)
	}
}

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/internal/faults"
	"github.com/samem/trainer/llm/llmtest"
)

// holdServer is the model server of a SAMem training run (-llm openai, see
// holdArgs; faults.SAMemReplies answers, so that every step makes calls:
// embeddings alone are asked once per text). It answers at once until the run has
// committed its first checkpoint, then holds the first request that comes
// after it until release is called. So a test stops the run at a known
// point, in iteration 2 between its first and second checkpoints, whatever
// the load of the machine: it waits for Held, acts (signals, kill), then
// releases. Every request after the release is answered at once.
type holdServer struct {
	*llmtest.Server
	held    chan struct{}
	rel     chan struct{}
	relOnce sync.Once
}

func newHoldServer(t *testing.T, run string) *holdServer {
	t.Helper()
	latest := filepath.Join(run, "samem", checkpoints.Folder, checkpoints.LatestFile)
	h := &holdServer{held: make(chan struct{}), rel: make(chan struct{})}
	var heldOnce sync.Once
	replies := faults.SAMemReplies()
	h.Server = llmtest.NewServer(t, func(c llmtest.Call) llmtest.Reply {
		select {
		case <-h.rel:
		default:
			if _, err := os.Stat(latest); err == nil {
				heldOnce.Do(func() { close(h.held) })
				<-h.rel
			}
		}
		return replies(c)
	})
	t.Cleanup(h.release) // before the server closes: no handler stays blocked
	return h
}

// holdArgs are the flags that send a run's model calls to h.
func (h *holdServer) holdArgs() []string { return modelArgs(h.URL) }

// modelArgs are the flags of a run whose model calls go to url, every one
// of them (no response cache).
func modelArgs(url string) []string {
	return []string{"-llm", "openai", "-chat-model", "hold-chat", "-embed-model", "hold-embed", "-embed-dim", "32",
		"-send-dimensions", "-chat-url", url, "-cache", "off"}
}

// waitHeld waits until a request is held; a run that ends first, or does
// not get there within 2 minutes (a hang guard), fails the test.
func (h *holdServer) waitHeld(t *testing.T, c *child) {
	t.Helper()
	select {
	case <-h.held:
	case <-c.done:
		t.Fatalf("the run ended (%v) before its first request after the first checkpoint:\n%s", c.err, c.out.String())
	case <-time.After(2 * time.Minute):
		t.Fatalf("no request after the first checkpoint within 2 minutes:\n%s", c.out.String())
	}
}

func (h *holdServer) release() { h.relOnce.Do(func() { close(h.rel) }) }

// syncBuffer is a bytes.Buffer for a child's output read while it runs.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// child is a command started with its stderr collected.
type child struct {
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{} // closed when it has exited; err is then set
	err  error
}

func start(t *testing.T, bin string, args ...string) *child {
	t.Helper()
	c := &child{cmd: exec.Command(bin, args...), out: &syncBuffer{}, done: make(chan struct{})}
	c.cmd.Stderr = c.out
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { c.err = c.cmd.Wait(); close(c.done) }()
	t.Cleanup(func() { c.cmd.Process.Kill(); <-c.done })
	return c
}

// wait waits for the child to exit (a hang guard of 2 minutes fails the
// test) and returns its error.
func (c *child) wait(t *testing.T) error {
	t.Helper()
	select {
	case <-c.done:
		return c.err
	case <-time.After(2 * time.Minute):
		t.Fatalf("the run did not end within 2 minutes:\n%s", c.out.String())
		return nil
	}
}

// waitOutput waits until the child's stderr contains want; the child ending
// without it, or 2 minutes passing (a hang guard), fails the test.
func (c *child) waitOutput(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(c.out.String(), want) {
		select {
		case <-c.done:
			if !strings.Contains(c.out.String(), want) {
				t.Fatalf("the run ended (%v) without printing %q:\n%s", c.err, want, c.out.String())
			}
			return
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run did not print %q within 2 minutes:\n%s", want, c.out.String())
		}
	}
}

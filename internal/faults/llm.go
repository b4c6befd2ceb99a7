package faults

import (
	"fmt"
	"hash/fnv"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/samem/trainer/llm/llmtest"
)

// SAMemReplies answers the prompts of SAMem's three model roles the way a
// cooperative model would, so that a real training run through the openai
// backend can be played against a local server:
//
//   - summarize (system prompt "You summarise the situation"): a short state
//     that depends on the current observation's first line, so that states
//     cluster into a handful of situations;
//   - think (system prompts of thought/prompts, asking for "Thought:" and
//     "Action:", or in the two-call pipeline for "Thought:" alone and then
//     "Action:" alone): a general thought and an action copied from the
//     prompt's admissible list (chosen by a hash of the prompt, so runs repeat);
//   - check (forget/prompts/check.tmpl, "is_valid"): "is_valid: True".
//
// Any other chat gets a 400 naming the prompt, which the client reports as a
// permanent error: a test whose prompts changed fails loudly. Embedding
// requests get llmtest's deterministic vectors.
func SAMemReplies() llmtest.Handler {
	return func(c llmtest.Call) llmtest.Reply {
		if c.Chat == nil {
			return llmtest.Reply{}
		}
		sys, user := c.Chat.System(), c.Chat.LastUser()
		switch {
		case strings.Contains(sys, "summarise the situation"):
			return llmtest.Reply{Text: "The agent is at " + firstWords(observation(user), 4) + "."}
		case strings.Contains(sys, "is_valid"):
			return llmtest.Reply{Text: "is_valid: True"}
		case strings.Contains(sys, "Thought:") && strings.Contains(sys, "Action:"):
			act := pick(admissible(c.Chat.Prompt()), c.Chat.Prompt())
			return llmtest.Reply{Text: "Thought: look around, then go where the task's objects usually are.\nAction: " + act}
		case strings.Contains(sys, "Thought:"):
			// the thought call of the two-call pipeline (thought/twocall.go)
			return llmtest.Reply{Text: "Thought: look around, then go where the task's objects usually are."}
		case strings.Contains(sys, "Carry out the thought") && strings.Contains(sys, "Action:"):
			// its action call
			return llmtest.Reply{Text: "Action: " + pick(admissible(c.Chat.Prompt()), c.Chat.Prompt())}
		}
		return llmtest.Reply{Fault: llmtest.Fault{Status: http.StatusBadRequest,
			Message: fmt.Sprintf("faults: no SAMem role matches system prompt %.80q", sys)}}
	}
}

// observation is the text after "Current observation:" in a user prompt.
func observation(user string) string {
	if i := strings.LastIndex(user, "Current observation:"); i >= 0 {
		return strings.TrimSpace(user[i+len("Current observation:"):])
	}
	return user
}

func firstWords(s string, n int) string {
	f := strings.Fields(strings.SplitN(s, "\n", 2)[0])
	return strings.Join(f[:min(n, len(f))], " ")
}

// admissible is the list under "Admissible actions:" in a thinker prompt.
func admissible(prompt string) []string {
	i := strings.LastIndex(prompt, "Admissible actions:")
	if i < 0 {
		return nil
	}
	var out []string
	for _, l := range strings.Split(prompt[i+len("Admissible actions:"):], "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			if len(out) > 0 {
				break
			}
			continue
		}
		out = append(out, l)
	}
	return out
}

func pick(acts []string, key string) string {
	if len(acts) == 0 {
		return "look"
	}
	h := fnv.New32a()
	h.Write([]byte(key))
	return acts[int(h.Sum32()%uint32(len(acts)))]
}

// Plan decides the fault of the n-th call (1-based, over chats and
// embeddings) a Faulty handler sees; the zero Fault lets the call through.
type Plan func(n int, c llmtest.Call) llmtest.Fault

// Faulty counts the calls to h and injects the faults plan gives. Its Calls
// and Faults report how many calls it saw and how many it spoiled.
type Faulty struct {
	h      llmtest.Handler
	plan   Plan
	n      atomic.Int64
	faults atomic.Int64
}

// NewFaulty wraps h with plan.
func NewFaulty(h llmtest.Handler, plan Plan) *Faulty { return &Faulty{h: h, plan: plan} }

// Handler is the handler to give llmtest.NewServer.
func (f *Faulty) Handler() llmtest.Handler {
	return func(c llmtest.Call) llmtest.Reply {
		n := int(f.n.Add(1))
		if ft := f.plan(n, c); ft != (llmtest.Fault{}) {
			f.faults.Add(1)
			return llmtest.Reply{Fault: ft}
		}
		return f.h(c)
	}
}

// Calls is the number of calls seen so far.
func (f *Faulty) Calls() int { return int(f.n.Load()) }

// Faults is the number of calls given a fault so far.
func (f *Faulty) Faults() int { return int(f.faults.Load()) }

// Gate is a server on a fixed address that forwards to a backend URL while
// it is up and refuses connections (nothing listens) while it is down: a
// model server that goes away and comes back on the same address.
type Gate struct {
	// URL is the base URL to give a client, with the backend's path.
	URL string

	addr  string
	proxy http.Handler
	mu    sync.Mutex
	srv   *http.Server
	t     testing.TB
}

// NewGate starts a gate in front of backend (a base URL such as an
// llmtest.Server's URL), up; it is shut down when the test ends.
func NewGate(t testing.TB, backend string) *Gate {
	t.Helper()
	u, err := url.Parse(backend)
	if err != nil {
		t.Fatalf("faults: backend %q: %v", backend, err)
	}
	path := u.Path
	u.Path = ""
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("faults: listen: %v", err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.ErrorLog = log.New(io.Discard, "", 0) // a failing backend is the point
	g := &Gate{addr: l.Addr().String(), proxy: proxy, t: t}
	g.URL = "http://" + g.addr + path
	g.serve(l)
	t.Cleanup(g.Down)
	return g
}

func (g *Gate) serve(l net.Listener) {
	srv := &http.Server{Handler: g.proxy, ErrorLog: log.New(io.Discard, "", 0)}
	g.srv = srv
	go srv.Serve(l)
}

// Down closes the listener and every open connection: requests in flight
// fail, new ones are refused.
func (g *Gate) Down() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.srv != nil {
		g.srv.Close()
		g.srv = nil
	}
}

// Up listens again on the same address.
func (g *Gate) Up() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.srv != nil {
		return nil
	}
	l, err := net.Listen("tcp", g.addr)
	if err != nil {
		return fmt.Errorf("faults: listen again on %s: %w", g.addr, err)
	}
	g.serve(l)
	return nil
}

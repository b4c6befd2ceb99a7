package zmachine

import (
	"github.com/samem/trainer/internal/procgroup"

	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Errors of the interpreter process.
var (
	// ErrInterpreterDied is returned when the interpreter exits or is killed
	// in the middle of an episode (the episode ends with it; the next Reset
	// starts a new interpreter).
	ErrInterpreterDied = errors.New("interpreter died")
	// ErrTurnTimeout is returned when the interpreter writes nothing at all
	// within Config.TurnTimeout of a command (it is killed).
	ErrTurnTimeout = errors.New("interpreter did not answer in time")
)

// truncNote marks a turn whose output was cut at Config.MaxTurnBytes.
const truncNote = "\n[... output truncated ...]\n"

// proc is one running interpreter. Its output is read by one goroutine into
// chunks; turn reads assemble them until the prompt.
type proc struct {
	cmd    *exec.Cmd
	stdin  *os.File
	chunks chan []byte   // closed at EOF
	dead   chan struct{} // closed by kill, so that the reader never blocks on a send
	once   sync.Once
	stderr *capBuffer
	waitMu sync.Mutex
	waited bool
	werr   error

	maxTurn int
	timeout time.Duration // no output at all
	quiet   time.Duration // silence after some output without a prompt
}

// startProc starts argv[0] with argv[1:] (no shell) in dir.
func startProc(argv []string, dir string, maxTurn int, timeout, quiet time.Duration) (*proc, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Stdin = inR
	cmd.Stdout = outW
	p := &proc{cmd: cmd, stdin: inW, chunks: make(chan []byte, 16), dead: make(chan struct{}), stderr: &capBuffer{max: 4096}, maxTurn: maxTurn, timeout: timeout, quiet: quiet}
	cmd.Stderr = p.stderr
	procgroup.Set(cmd)
	err = cmd.Start()
	// The child holds its own copies of these ends now.
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	go p.readLoop(outR)
	return p, nil
}

func (p *proc) readLoop(r *os.File) {
	defer close(p.chunks)
	defer r.Close()
	for {
		buf := make([]byte, 32<<10)
		n, err := r.Read(buf)
		if n > 0 {
			select {
			case p.chunks <- buf[:n]:
			case <-p.dead:
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// send writes one command line.
func (p *proc) send(line string) error {
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		return fmt.Errorf("%w: write command: %v", ErrInterpreterDied, err)
	}
	return nil
}

// readTurn reads the output of one turn: up to the prompt the interpreter
// prints when it waits for input. As a fall-back for a game whose prompt is
// not recognised, output that stops for Config.QuietTime without a prompt is
// taken as the whole turn; no output at all within Config.TurnTimeout is
// ErrTurnTimeout.
// On a cancelled ctx the interpreter is killed.
func (p *proc) readTurn(ctx context.Context) (string, error) {
	var head []byte              // the turn's text, up to maxTurn bytes
	tail := make([]byte, 0, 256) // the last bytes, for prompt detection past the cap
	truncated := false
	timer := time.NewTimer(p.timeout)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			p.kill()
			return "", fmt.Errorf("read interpreter output: %w", ctx.Err())
		case <-timer.C:
			if len(head) == 0 {
				p.kill()
				return "", fmt.Errorf("%w (%s)", ErrTurnTimeout, p.timeout)
			}
			return finishTurn(head, truncated), nil
		case c, ok := <-p.chunks:
			if !ok {
				err := p.wait()
				msg := strings.TrimSpace(p.stderr.String())
				text := finishTurn(head, truncated)
				if err == nil && msg == "" {
					return text, fmt.Errorf("%w: exited", ErrInterpreterDied)
				}
				return text, fmt.Errorf("%w: %v %s", ErrInterpreterDied, err, quote(msg))
			}
			if room := p.maxTurn - len(head); room > 0 {
				if len(c) > room {
					head = append(head, c[:room]...)
					truncated = true
				} else {
					head = append(head, c...)
				}
			} else {
				truncated = true
			}
			tail = append(tail, c...)
			if len(tail) > 256 {
				tail = append(tail[:0], tail[len(tail)-256:]...)
			}
			if promptEnd(tail) {
				return finishTurn(head, truncated), nil
			}
			// Output has come: from now on the deadline is on silence.
			timer.Stop()
			timer.Reset(p.quiet)
		}
	}
}

func finishTurn(head []byte, truncated bool) string {
	if truncated {
		return string(head) + truncNote
	}
	return string(head)
}

// kill ends the interpreter (and its process group) and reaps it.
func (p *proc) kill() {
	p.once.Do(func() {
		close(p.dead)
		procgroup.Kill(p.cmd)
		p.stdin.Close()
	})
	p.wait()
}

// wait reaps the process once.
func (p *proc) wait() error {
	p.waitMu.Lock()
	defer p.waitMu.Unlock()
	if !p.waited {
		p.waited = true
		p.werr = p.cmd.Wait()
	}
	return p.werr
}

// close asks the interpreter nothing and kills it: a game's own quit dialog
// differs from game to game, and the state is thrown away anyway.
func (p *proc) close() {
	p.kill()
}

// capBuffer keeps the first max bytes written to it.
type capBuffer struct {
	mu  sync.Mutex
	max int
	b   bytes.Buffer
}

func (c *capBuffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - c.b.Len(); room > 0 {
		if len(p) > room {
			c.b.Write(p[:room])
		} else {
			c.b.Write(p)
		}
	}
	return len(p), nil
}

func (c *capBuffer) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.b.String()
}

// quote quotes s for an error message, cut to 200 bytes.
func quote(s string) string {
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return fmt.Sprintf("%q", s)
}

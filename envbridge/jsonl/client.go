package jsonl

import (
	"github.com/samem/trainer/internal/procgroup"

	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"
)

// ErrDied is returned when the environment process exits or is killed, or
// does not answer within Config.RequestTimeout (it is killed then).
var ErrDied = errors.New("environment process died")

// client is one running environment process.
type client struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan lineOrErr // closed at EOF
	dead   chan struct{}
	once   sync.Once
	stderr *capBuffer
	nextID int64
	broken error // set once the process is unusable
	cfg    Config
}

type lineOrErr struct {
	line []byte
	err  error
}

func startClient(cfg Config) (*client, error) {
	cmd := exec.Command(cfg.Command[0], cfg.Command[1:]...)
	cmd.Dir = cfg.Dir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("jsonl start: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("jsonl start: %w", err)
	}
	c := &client{cmd: cmd, stdin: stdin, lines: make(chan lineOrErr, 1), dead: make(chan struct{}), stderr: &capBuffer{max: 4096}, cfg: cfg}
	cmd.Stderr = c.stderr
	procgroup.Set(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("jsonl start %s: %w", cfg.Command[0], err)
	}
	go c.readLoop(stdout)
	return c, nil
}

// readLoop reads lines of at most cfg.MaxLineBytes; a longer line is an
// error and ends the loop (the process is killed by the reader of it).
func (c *client) readLoop(r io.Reader) {
	defer close(c.lines)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readLine(br, c.cfg.MaxLineBytes)
		if len(line) > 0 || err != nil && !errors.Is(err, io.EOF) {
			select {
			case c.lines <- lineOrErr{line, err}:
			case <-c.dead:
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// errLineTooLong is sent for a line over the limit.
var errLineTooLong = errors.New("line too long")

// readLine reads one line without its newline, at most max bytes.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var buf []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(buf)+len(frag) > max+1 {
			return append(buf, frag[:min(len(frag), max+1-len(buf))]...), fmt.Errorf("%w (over %d bytes)", errLineTooLong, max)
		}
		buf = append(buf, frag...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(buf, "\r\n"), err
	}
}

// call sends one request and waits for its response, decoding its result
// into out. A protocol error or a dead process makes the client unusable.
func (c *client) call(ctx context.Context, method string, params, out any) error {
	if c.broken != nil {
		return c.broken
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	c.nextID++
	id := c.nextID
	b, err := json.Marshal(Request{ID: id, Method: method, Params: params})
	if err != nil {
		return fmt.Errorf("jsonl %s: %w", method, err)
	}
	if _, err := c.stdin.Write(append(b, '\n')); err != nil {
		return c.fail(fmt.Errorf("%w: write %s: %v%s", ErrDied, method, err, c.stderrNote()))
	}
	timer := time.NewTimer(c.cfg.RequestTimeout)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return c.fail(fmt.Errorf("jsonl %s: %w", method, ctx.Err()))
		case <-timer.C:
			return c.fail(fmt.Errorf("%w: no answer to %s within %s", ErrDied, method, c.cfg.RequestTimeout))
		case l, ok := <-c.lines:
			if !ok {
				c.kill()
				return c.fail(fmt.Errorf("%w: exited during %s: %v%s", ErrDied, method, c.cmd.ProcessState, c.stderrNote()))
			}
			if l.err != nil {
				return c.fail(fmt.Errorf("jsonl %s: %w: %v: line %s", method, ErrProtocol, l.err, quote(l.line)))
			}
			resp, err := DecodeResponse(l.line)
			if err != nil {
				return c.fail(fmt.Errorf("jsonl %s: %w", method, err))
			}
			if resp.ID != id {
				return c.fail(fmt.Errorf("jsonl %s: %w: response id %d, want %d: line %s", method, ErrProtocol, resp.ID, id, quote(l.line)))
			}
			if resp.Error != nil {
				return fmt.Errorf("jsonl %s: %w", method, resp.Error)
			}
			if out != nil {
				if err := json.Unmarshal(resp.Result, out); err != nil {
					return c.fail(fmt.Errorf("jsonl %s: %w: result: %v: line %s", method, ErrProtocol, err, quote(l.line)))
				}
			}
			return nil
		}
	}
}

// fail marks the client broken (and kills the process) with err.
func (c *client) fail(err error) error {
	c.broken = err
	c.kill()
	return err
}

func (c *client) stderrNote() string {
	if s := c.stderr.String(); s != "" {
		return ": stderr " + quote([]byte(s))
	}
	return ""
}

// kill kills the process and reaps it.
func (c *client) kill() {
	c.once.Do(func() {
		close(c.dead)
		procgroup.Kill(c.cmd)
		c.stdin.Close()
		_ = c.cmd.Wait()
	})
}

// close asks the environment to close, then kills it either way.
func (c *client) close() {
	if c.broken == nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_ = c.call(ctx, "close", nil, nil)
		cancel()
	}
	c.kill()
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
		c.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *capBuffer) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.b.String()
}

package llmtest

import (
	"context"
	"sync"
	"time"
)

// Stall makes a deadline pass at an event instead of a wall-clock instant,
// so that "a reply slower than the deadline" is tested without a short
// deadline that a normal reply on a loaded machine could also miss.
// Handler is a server handler that holds every request until the client
// hangs up; a context from Context ends with context.DeadlineExceeded as
// soon as the server holds a request made with it.
//
// Requests made with Stall's contexts must be sent one at a time: the held
// request is matched to the context in use.
type Stall struct{ held chan struct{} }

// NewStall returns a Stall.
func NewStall() *Stall { return &Stall{held: make(chan struct{})} }

// Handler answers only once the client has hung up.
func (s *Stall) Handler(Call) Reply {
	s.held <- struct{}{} // taken by the context of the request in flight
	return Reply{Fault: Fault{Delay: time.Hour}}
}

// Context returns a child of parent whose deadline passes when Handler
// holds a request; cancel releases it (after which Err is context.Canceled
// unless it had ended before).
func (s *Stall) Context(parent context.Context) (context.Context, context.CancelFunc) {
	ctx := &eventCtx{Context: parent, done: make(chan struct{})}
	stop := make(chan struct{})
	go func() {
		select {
		case <-s.held:
			ctx.expire(context.DeadlineExceeded)
		case <-parent.Done():
			ctx.expire(parent.Err())
		case <-stop:
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() { close(stop) })
		ctx.expire(context.Canceled)
	}
}

// eventCtx is a context that ends when expire is first called, with that
// error.
type eventCtx struct {
	context.Context
	done chan struct{}
	once sync.Once
	mu   sync.Mutex
	err  error
}

func (c *eventCtx) Done() <-chan struct{} { return c.done }

func (c *eventCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *eventCtx) expire(err error) {
	c.once.Do(func() {
		c.mu.Lock()
		c.err = err
		c.mu.Unlock()
		close(c.done)
	})
}

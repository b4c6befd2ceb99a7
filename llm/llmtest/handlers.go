package llmtest

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// Text answers every chat with text (and every embedding request with the
// deterministic vectors).
func Text(text string) Handler {
	return func(Call) Reply { return Reply{Text: text} }
}

// Echo answers every chat with the content of its last user message.
func Echo() Handler {
	return func(c Call) Reply {
		if c.Chat == nil {
			return Reply{}
		}
		return Reply{Text: c.Chat.LastUser()}
	}
}

// Route is one rule of Routes: a chat whose system prompt contains Contains
// is answered with Text. With InPrompt, the whole prompt (every message) is
// searched instead of the system prompt alone.
type Route struct {
	Contains string
	Text     string
	InPrompt bool
}

// Routes answers each chat with the Text of the first route that matches
// it, so one server can play several roles ("summarize", "think",
// "check", ...) told apart by their prompts. A chat no route matches gets a
// 400 error whose message starts with "llmtest: no route", which the client
// reports as a permanent error: a test whose prompts changed fails loudly
// instead of receiving a wrong answer. Embedding requests get the
// deterministic vectors.
func Routes(routes ...Route) Handler {
	return func(c Call) Reply {
		if c.Chat == nil {
			return Reply{}
		}
		sys, all := c.Chat.System(), c.Chat.Prompt()
		for _, r := range routes {
			hay := sys
			if r.InPrompt {
				hay = all
			}
			if strings.Contains(hay, r.Contains) {
				return Reply{Text: r.Text}
			}
		}
		return Reply{Fault: Fault{
			Status:  http.StatusBadRequest,
			Message: fmt.Sprintf("llmtest: no route matches system prompt %.80q", sys),
		}}
	}
}

// Sequence answers the calls with replies in order, one each. Once they are
// used up every further call gets a 500 whose message starts with
// "llmtest: sequence exhausted".
func Sequence(replies ...Reply) Handler {
	var mu sync.Mutex
	next := 0
	return func(Call) Reply {
		mu.Lock()
		defer mu.Unlock()
		if next >= len(replies) {
			return Reply{Fault: Fault{
				Status:  http.StatusInternalServerError,
				Message: fmt.Sprintf("llmtest: sequence exhausted after %d replies", len(replies)),
			}}
		}
		next++
		return replies[next-1]
	}
}

// FailFirst injects f into the first n calls it sees and hands every later
// call to then: FailFirst(2, Fault{Status: 429, RetryAfter: "1"}, Text("ok"))
// is a rate limit that clears on the third attempt.
func FailFirst(n int, f Fault, then Handler) Handler {
	var mu sync.Mutex
	seen := 0
	return func(c Call) Reply {
		mu.Lock()
		seen++
		fail := seen <= n
		mu.Unlock()
		if fail {
			return Reply{Fault: f}
		}
		return then(c)
	}
}

// Always injects f into every call.
func Always(f Fault) Handler {
	return func(Call) Reply { return Reply{Fault: f} }
}

// RequireKey answers 401 (like the real API: "Incorrect API key provided")
// unless the request carries "Authorization: Bearer key", and hands the
// others to then.
func RequireKey(key string, then Handler) Handler {
	return func(c Call) Reply {
		if c.Header.Get("Authorization") != "Bearer "+key {
			return Reply{Fault: Fault{Status: http.StatusUnauthorized, Message: "Incorrect API key provided."}}
		}
		return then(c)
	}
}

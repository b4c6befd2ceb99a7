package llm

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// MaxRoomDoublings bounds how much more room a question asked again gets:
// its token budget doubles with each unusable reply (Request.Again), at
// most this many times.
const MaxRoomDoublings = 2

// Settings are a run's model settings that apply to the requests of every
// role (-max-tokens, -reasoning-effort, -structured off).
type Settings struct {
	// MaxTokens bounds replies by purpose: an entry for the purpose itself
	// ("clin.controller"), else for its method ("clin"), else the entry ""
	// for every purpose. A purpose without one keeps its role's own bound.
	MaxTokens map[string]int
	// ReasoningEffort is sent with every request ("" : none).
	ReasoningEffort string
	// NoSchemas leaves Request.Schema out (structured outputs off).
	NoSchemas bool
}

// Zero reports settings that change nothing.
func (s Settings) Zero() bool {
	return len(s.MaxTokens) == 0 && s.ReasoningEffort == "" && !s.NoSchemas
}

// MaxTokensFor is the bound set for purpose, or 0 when none is.
func (s Settings) MaxTokensFor(purpose string) int {
	if v, ok := s.MaxTokens[purpose]; ok {
		return v
	}
	if method, _, ok := strings.Cut(purpose, "."); ok {
		if v, ok := s.MaxTokens[method]; ok {
			return v
		}
	}
	return s.MaxTokens[""]
}

// Apply returns req with the settings applied. A bound set here replaces
// the role's own and, like it, doubles for a question asked again.
func (s Settings) Apply(req Request) Request {
	if v := s.MaxTokensFor(req.Purpose); v > 0 {
		req.MaxTokens = v << min(max(req.Again, 0), MaxRoomDoublings)
	}
	if s.ReasoningEffort != "" {
		req.ReasoningEffort = s.ReasoningEffort
	}
	if s.NoSchemas {
		req.Schema = nil
	}
	return req
}

// Chatter returns next with the settings applied to every request; next
// itself when they change nothing. It sits above the response cache, so
// that the cache key holds the request as it is sent.
func (s Settings) Chatter(next Chatter) Chatter {
	if s.Zero() || next == nil {
		return next
	}
	return settingsChat{s: s, next: next}
}

type settingsChat struct {
	s    Settings
	next Chatter
}

func (c settingsChat) Chat(ctx context.Context, req Request) (Response, error) {
	return c.next.Chat(ctx, c.s.Apply(req))
}

// ParseMaxTokens parses -max-tokens: a number for every role, and/or
// comma-separated "purpose=N" entries, where purpose is a role's
// accounting name ("summarize", "clin.controller") or a method's prefix
// ("clin"): "512", "summarize=200,think=400", "1024,check=64". The empty
// string gives no bounds.
func ParseMaxTokens(s string) (map[string]int, error) {
	out := map[string]int{}
	if strings.TrimSpace(s) == "" {
		return out, nil
	}
	for _, entry := range strings.Split(s, ",") {
		entry = strings.TrimSpace(entry)
		name, val, ok := strings.Cut(entry, "=")
		if !ok {
			name, val = "", entry
		}
		name = strings.TrimSpace(name)
		if ok && name == "" {
			return nil, fmt.Errorf("max tokens %q: want purpose=N", entry)
		}
		n, err := strconv.Atoi(strings.TrimSpace(val))
		if err != nil || n < 1 || n > 1<<20 {
			return nil, fmt.Errorf("max tokens %q: want a whole number from 1 to %d", entry, 1<<20)
		}
		if _, dup := out[name]; dup {
			if name == "" {
				return nil, fmt.Errorf("max tokens %q: the bound for every role is given twice", s)
			}
			return nil, fmt.Errorf("max tokens %q: %s is given twice", s, name)
		}
		out[name] = n
	}
	return out, nil
}

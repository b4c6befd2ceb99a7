package baseline

import (
	"errors"
	"fmt"
	"strings"

	"github.com/samem/trainer/internal/fold"
	replyfmt "github.com/samem/trainer/internal/reply"
	"github.com/samem/trainer/llm"
)

// ErrEmptyReflection is returned by ParseReflection when a reply holds no
// reflection.
var ErrEmptyReflection = errors.New("empty reflection")

// maxReflectionLen bounds a reflection in bytes; longer replies are cut at a
// word boundary, so that a runaway reply cannot crowd the actor's prompt
// (three reflections are shown at every step).
const maxReflectionLen = 600

// ParseReflection extracts a reflection from a model reply: code fences,
// markdown emphasis, a leading "Reflection:" label, surrounding quotes and
// invalid UTF-8 are dropped, white space is folded, and the result is cut to
// maxReflectionLen bytes at a word boundary. An empty result is
// ErrEmptyReflection.
func ParseReflection(reply string) (string, error) {
	s, _ := replyfmt.Clean(strings.ToValidUTF8(reply, ""))
	s = strings.NewReplacer("`", "", "**", "", "__", "").Replace(s)
	s = strings.TrimSpace(s)
	if i := fold.Index(s, "reflection:"); i >= 0 && i < 40 {
		s = s[i+len("reflection:"):]
	}
	s = strings.Join(strings.Fields(s), " ")
	s = strings.TrimSpace(strings.Trim(s, `"'`))
	s = strings.TrimSpace(replyfmt.Clip(s, maxReflectionLen))
	if s == "" {
		return "", fmt.Errorf("reflection reply %q: %w", replyfmt.Short(reply, 80), ErrEmptyReflection)
	}
	return s, nil
}

// reflectMessages renders the reflection prompt: the task, how the trial
// ended and its trajectory.
func reflectMessages(goal, outcome string, history []Step, omitted int) ([]llm.Message, error) {
	sys, err := render("reflect-system.tmpl", nil)
	if err != nil {
		return nil, err
	}
	user, err := render("reflect-user.tmpl", struct {
		Goal, Outcome string
		History       []Step
		Omitted       int
	}{goal, outcome, history, omitted})
	if err != nil {
		return nil, err
	}
	return []llm.Message{{Role: "system", Content: sys}, {Role: "user", Content: user}}, nil
}

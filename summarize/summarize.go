// Package summarize turns an agent's observation history into a state: a
// short situation summary that SAMem embeds and clusters (seed 002 Sec. 3.2,
// Eq. 2). Three implementations share one contract:
//
//   - LLM: the paper's summariser, one chat call per step, with a prompt per
//     environment style (Appendix D.1, Fig. 12). Interactive fiction
//     summarises the current observation only (Appendix A).
//   - offline.Summarizer (package summarize/offline): rules over the
//     observation text and the goal that produce de-indexicalised states
//     ("the target object", "the final destination") without a model.
//   - Raw: the raw current observation, the "w/o situation processing"
//     ablation of Table 2.
package summarize

import (
	"context"
	"errors"
	"strings"

	"github.com/samem/trainer/envbridge"
)

// Summarizer starts one summarisation session per episode.
type Summarizer interface {
	Begin(t envbridge.Task, style envbridge.Style) Session
}

// Session summarises one episode as it unfolds. It is used by one goroutine.
type Session interface {
	// Summarize returns the state reached when action (empty for the first
	// observation of the episode) led to obs.
	Summarize(ctx context.Context, action string, obs envbridge.Observation) (string, error)
}

// ErrEmptySummary is returned by the reply parsers for a reply with no
// usable summary. The model-backed summariser never returns it: it asks
// again, then falls back to the raw observation (LLM, Fallback).
var ErrEmptySummary = errors.New("empty summary")

// NoObservation is the state of an empty observation when the state is the
// observation itself (Raw, and the model's fallback): a state is never
// empty.
const NoObservation = "(nothing observed)"

// MaxStateLen bounds a state's length in bytes; longer model replies are cut
// at a word boundary so that a runaway reply cannot bloat memory.
const MaxStateLen = 1000

// Raw is the "w/o situation processing" ablation (seed 002 Table 2): the
// state is the current observation itself, white space folded.
type Raw struct{}

// Begin implements Summarizer.
func (Raw) Begin(envbridge.Task, envbridge.Style) Session { return rawSession{} }

type rawSession struct{}

func (rawSession) Summarize(_ context.Context, _ string, obs envbridge.Observation) (string, error) {
	s := Clip(fold(obs.Text), MaxStateLen)
	if s == "" {
		return NoObservation, nil
	}
	return s, nil
}

// fold collapses runs of white space into single spaces.
func fold(s string) string { return strings.Join(strings.Fields(s), " ") }

// Clip cuts s to at most n bytes at a word boundary (a state is at most
// MaxStateLen bytes, whichever summariser wrote it).
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n], ' ')
	if cut <= 0 {
		cut = n
		for cut > 0 && !utf8Start(s[cut]) {
			cut--
		}
	}
	return s[:cut]
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

package llm

import (
	"context"
	"sync/atomic"
)

// episodeKey carries an Episode in a context.
type episodeKey struct{}

// Episode is what a model call knows of the episode it is made for. The
// runner puts one in the context of every episode it plays (WithEpisode).
type Episode struct {
	// Route numbers the episode for routing: a client with several servers
	// for a role sends every call of one episode to the same one (so that a
	// server's prefix cache is reused from step to step), and consecutive
	// episodes to different ones (llm/openai: server Route mod n).
	Route uint64
	// tokens counts the tokens of the episode's calls, answered by a server
	// or by the response cache (Tokens).
	tokens *atomic.Int64
}

// WithEpisode returns ctx carrying a new episode numbered route, and the
// episode (read its token count with Tokens once the episode is over).
func WithEpisode(ctx context.Context, route uint64) (context.Context, Episode) {
	e := Episode{Route: route, tokens: new(atomic.Int64)}
	return context.WithValue(ctx, episodeKey{}, e), e
}

// EpisodeFrom is the episode ctx carries; ok is false outside an episode.
func EpisodeFrom(ctx context.Context) (e Episode, ok bool) {
	e, ok = ctx.Value(episodeKey{}).(Episode)
	return e, ok
}

// Tokens is the number of tokens counted for the episode so far.
func (e Episode) Tokens() int64 {
	if e.tokens == nil {
		return 0
	}
	return e.tokens.Load()
}

// CountTokens adds the tokens of one answered call (u, from a server or
// the response cache) to the episode ctx carries, if any.
func CountTokens(ctx context.Context, u Usage) {
	if e, ok := EpisodeFrom(ctx); ok && e.tokens != nil {
		e.tokens.Add(int64(u.PromptTokens) + int64(u.CompletionTokens))
	}
}

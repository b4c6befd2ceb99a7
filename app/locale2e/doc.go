// Package locale2e holds the end-to-end test of the local models:
// SAMem trains through TinyLlama and USE run by llm/local, then replays its
// cache with no model process. It is a package of its own so that its few
// minutes of model time have their own test timeout.
package locale2e

// Package cache is a persistent response cache for chat and embeddings,
// stored in one bbolt file (go.etcd.io/bbolt), that wraps any llm.Chatter
// and llm.Embedder.
//
// # Keys
//
// A chat response is stored under the SHA-256 of the JSON encoding of
// {format version, model, messages (role and content, in order),
// temperature, seed, max tokens, stop sequences, and, when the request has
// them, the answer's JSON schema (name and schema) and the reasoning
// effort}: everything that changes the answer. The last two are left out
// of the encoding when unset, so a request without them keeps the key it
// had before they existed. Request.Purpose and Request.Again are left out
// (they never reach the server, so two roles sending the same prompt share
// the answer), and so is the API key, the base URL and every other client
// setting. Whether the server honoured the schema is stored with the
// answer (-structured auto turns it off for servers that refuse it). An embedding is stored
// under the SHA-256 of {format version, model, dimension, text}. Only
// successful responses are stored.
//
// Because temperature and seed are part of the key, a request at
// temperature > 0 is answered once and then replayed: the cache makes runs
// repeatable, which is the point, but it also means repeated identical
// samples are not independent.
//
// # Safety
//
// bbolt commits each write transaction atomically (copy-on-write pages,
// then a checksummed meta page), so a process killed mid-write leaves the
// file at its last committed state, readable. Writes are synced to disk
// before Put returns.
//
// bbolt allows one writer process at a time through a file lock. A Cache
// holds the lock while it is in use; with Options.IdleClose > 0 it closes
// the file after that much idle time, so two runs sharing one cache file
// take turns (each waits up to Options.Timeout for the lock; after that
// the call fails with an error wrapping ErrLocked). Within a process one
// Cache is safe for concurrent goroutines.
//
// # Replaying a run offline
//
// The cache doubles as a recording. A run made against a real model stores
// every chat response and embedding it received. To replay that run with no
// server and no API key:
//
//  1. keep the cache file (default: inside the run directory; -cache PATH);
//  2. rerun the same configuration (same models, prompts, seeds,
//     temperature, token limits, embedding model and dimension) with
//     -cache PATH pointing at it;
//  3. wrap with a nil next Chatter/Embedder (cmd/'s offline replay mode):
//     every request is answered from the cache, and a request that was
//     never recorded fails with ErrMiss instead of reaching a server.
//
// With a real client as next instead, recorded requests are replayed and
// only new ones go to the server, so an interrupted run resumes without
// paying twice.
package cache

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/samem/trainer/llm"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Errors of this package.
var (
	// ErrMiss is returned in replay mode (nil next) for a request the cache
	// does not hold.
	ErrMiss = errors.New("not in the response cache")
	// ErrLocked is wrapped by the error returned when another process held
	// the cache file for longer than Options.Timeout.
	ErrLocked = errors.New("cache file locked by another process")
	// ErrClosed is returned by calls after Close.
	ErrClosed = errors.New("cache closed")
	// ErrFormat is returned by Open for a file written by an incompatible
	// version of this package.
	ErrFormat = errors.New("unknown cache format")
)

// formatVersion is stored in the file and in every key.
const formatVersion = 1

var (
	bucketMeta  = []byte("meta")
	bucketChat  = []byte("chat")
	bucketEmbed = []byte("embed")
	keyVersion  = []byte("version")
)

// Options configure a Cache.
type Options struct {
	// Timeout is how long to wait for another process's lock on the file
	// (default 30 s).
	Timeout time.Duration
	// IdleClose, when > 0, closes the file after this long without use so
	// another process can take its turn; it is reopened on the next call
	// (about 0.3 ms). 0 keeps it open until Close.
	IdleClose time.Duration
	// Meter, when not nil, counts cache hits (under the request's purpose,
	// or llm.EmbedPurpose).
	Meter *llm.Meter
}

// Cache is a persistent response cache. It is safe for concurrent use.
type Cache struct {
	path string
	opts Options

	mu     sync.Mutex
	db     *bolt.DB
	users  int
	gen    int // bumped on every acquire, so stale idle timers do nothing
	closed bool
}

// Open opens (creating if needed) the cache file at path. The directory
// must exist.
func Open(path string, opts Options) (*Cache, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Second
	}
	c := &Cache{path: path, opts: opts}
	db, err := c.acquire()
	if err != nil {
		return nil, err
	}
	defer c.release()
	err = db.Update(func(tx *bolt.Tx) error {
		meta, err := tx.CreateBucketIfNotExists(bucketMeta)
		if err != nil {
			return err
		}
		if v := meta.Get(keyVersion); v != nil {
			if len(v) != 8 || binary.LittleEndian.Uint64(v) != formatVersion {
				return fmt.Errorf("%w: version %x, want %d", ErrFormat, v, formatVersion)
			}
		} else if err := meta.Put(keyVersion, binary.LittleEndian.AppendUint64(nil, formatVersion)); err != nil {
			return err
		}
		for _, b := range [][]byte{bucketChat, bucketEmbed} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		c.closeNow()
		return nil, fmt.Errorf("open cache %s: %w", path, err)
	}
	return c, nil
}

// acquire opens the file if needed and marks it in use.
func (c *Cache) acquire() (*bolt.DB, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, ErrClosed
	}
	if c.db == nil {
		db, err := bolt.Open(c.path, 0o600, &bolt.Options{Timeout: c.opts.Timeout})
		if errors.Is(err, berrors.ErrTimeout) {
			return nil, fmt.Errorf("open cache %s: waited %v: %w", c.path, c.opts.Timeout, ErrLocked)
		}
		if err != nil {
			return nil, fmt.Errorf("open cache %s: %w", c.path, err)
		}
		c.db = db
	}
	c.users++
	c.gen++
	return c.db, nil
}

// release ends a use; the last user starts the idle timer.
func (c *Cache) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.users--
	if c.users > 0 || c.opts.IdleClose <= 0 {
		return
	}
	gen := c.gen
	time.AfterFunc(c.opts.IdleClose, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.gen == gen && c.users == 0 && c.db != nil {
			c.db.Close()
			c.db = nil
		}
	})
}

func (c *Cache) closeNow() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.db != nil {
		c.db.Close()
		c.db = nil
	}
}

// Close closes the file. Calls after Close fail with ErrClosed.
func (c *Cache) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	if c.db == nil {
		return nil
	}
	err := c.db.Close()
	c.db = nil
	return err
}

// view runs fn in a read transaction.
func (c *Cache) view(fn func(tx *bolt.Tx) error) error {
	db, err := c.acquire()
	if err != nil {
		return err
	}
	defer c.release()
	return db.View(fn)
}

// update runs fn in a write transaction, committed and synced on return.
func (c *Cache) update(fn func(tx *bolt.Tx) error) error {
	db, err := c.acquire()
	if err != nil {
		return err
	}
	defer c.release()
	return db.Update(fn)
}

// Len returns the number of chat responses and embeddings stored.
func (c *Cache) Len() (chats, embeddings int, err error) {
	err = c.view(func(tx *bolt.Tx) error {
		chats = tx.Bucket(bucketChat).Stats().KeyN
		embeddings = tx.Bucket(bucketEmbed).Stats().KeyN
		return nil
	})
	return chats, embeddings, err
}

// chatKey is the key of a chat request; see the package comment.
func chatKey(model string, req llm.Request) []byte {
	k := struct {
		V           int           `json:"v"`
		Model       string        `json:"model"`
		Messages    []llm.Message `json:"messages"`
		Temperature float64       `json:"temperature"`
		Seed        *int          `json:"seed"`
		MaxTokens   int           `json:"max_tokens"`
		Stop        []string      `json:"stop"`
		Schema      *llm.Schema   `json:"schema,omitempty"`
		Effort      string        `json:"reasoning_effort,omitempty"`
	}{formatVersion, model, req.Messages, req.Temperature, req.Seed, req.MaxTokens, req.Stop, req.Schema, req.ReasoningEffort}
	if len(k.Stop) == 0 {
		k.Stop = nil
	}
	if len(k.Messages) == 0 {
		k.Messages = nil
	}
	b, _ := json.Marshal(k) // cannot fail: strings, numbers, slices
	sum := sha256.Sum256(b)
	return sum[:]
}

// embedKey is the key of one text's embedding; see the package comment.
func embedKey(model string, dim int, text string) []byte {
	h := sha256.New()
	var hdr [16]byte
	binary.LittleEndian.PutUint64(hdr[:8], formatVersion)
	binary.LittleEndian.PutUint64(hdr[8:], uint64(dim))
	h.Write(hdr[:])
	binary.Write(h, binary.LittleEndian, uint64(len(model)))
	h.Write([]byte(model))
	h.Write([]byte(text))
	return h.Sum(nil)
}

// Chatter is an llm.Chatter answering from the cache first.
type Chatter struct {
	c     *Cache
	next  llm.Chatter
	model string
}

// Chatter wraps next, which sends requests to model (the name is part of
// the key, so give the model next really uses). A nil next makes a
// replay-only Chatter that fails with ErrMiss on anything not recorded.
func (c *Cache) Chatter(next llm.Chatter, model string) *Chatter {
	return &Chatter{c: c, next: next, model: model}
}

type storedChat struct {
	Text         string    `json:"text"`
	Model        string    `json:"model"`
	Fingerprint  string    `json:"system_fingerprint,omitempty"`
	Usage        llm.Usage `json:"usage"`
	Reasoning    string    `json:"reasoning,omitempty"`
	FinishReason string    `json:"finish_reason,omitempty"`
	Structured   bool      `json:"structured,omitempty"`
}

// Chat answers req from the cache (Response.Cached set, a hit counted in
// the Meter), or asks next and stores its answer.
func (ch *Chatter) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	key := chatKey(ch.model, req)
	var stored storedChat
	found := false
	err := ch.c.view(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketChat).Get(key)
		if v == nil {
			return nil
		}
		found = true
		var err error
		stored, err = decodeChat(v)
		return err
	})
	if err != nil {
		return llm.Response{}, fmt.Errorf("cache lookup: %w", err)
	}
	if found {
		ms := llm.MetersFor(ctx, ch.c.opts.Meter)
		ms.Hit(req.Purpose, ch.model, stored.Usage)
		ms.NoteServed(ch.model, stored.Model, stored.Fingerprint)
		llm.CountTokens(ctx, stored.Usage)
		return llm.Response{Text: stored.Text, Reasoning: stored.Reasoning, FinishReason: stored.FinishReason,
			Structured: stored.Structured, Model: stored.Model, Fingerprint: stored.Fingerprint, Usage: stored.Usage, Cached: true}, nil
	}
	if ch.next == nil {
		return llm.Response{}, fmt.Errorf("chat %s (%s): %w", ch.model, req.Purpose, ErrMiss)
	}
	resp, err := ch.next.Chat(ctx, req)
	if err != nil {
		return resp, err
	}
	v, _ := json.Marshal(storedChat{Text: resp.Text, Model: resp.Model, Fingerprint: resp.Fingerprint, Usage: resp.Usage,
		Reasoning: resp.Reasoning, FinishReason: resp.FinishReason, Structured: resp.Structured})
	if err := ch.c.update(func(tx *bolt.Tx) error { return tx.Bucket(bucketChat).Put(key, v) }); err != nil {
		return resp, fmt.Errorf("cache store: %w", err)
	}
	return resp, nil
}

// decodeChat decodes a stored chat response.
func decodeChat(b []byte) (storedChat, error) {
	var s storedChat
	if err := json.Unmarshal(b, &s); err != nil {
		return storedChat{}, fmt.Errorf("stored chat response: %w", err)
	}
	return s, nil
}

// Embedder is an llm.Embedder answering from the cache first.
type Embedder struct {
	c     *Cache
	next  llm.Embedder
	model string
	dim   int
}

// Embedder wraps next; model and dimension come from next. For a
// replay-only Embedder use EmbedderFor (a nil next here gives one with no
// model and dimension 0, which misses everything).
func (c *Cache) Embedder(next llm.Embedder) *Embedder {
	if next == nil {
		return &Embedder{c: c}
	}
	return &Embedder{c: c, next: next, model: next.Model(), dim: next.Dim()}
}

// EmbedderFor is a replay-only Embedder for model and dim: texts not
// recorded fail with ErrMiss.
func (c *Cache) EmbedderFor(model string, dim int) *Embedder {
	return &Embedder{c: c, model: model, dim: dim}
}

// Model is the wrapped embedder's model.
func (e *Embedder) Model() string { return e.model }

// Dim is the wrapped embedder's dimension.
func (e *Embedder) Dim() int { return e.dim }

// Embed answers each text from the cache, sends the missing ones (each
// distinct text once) to next in one call, and stores their vectors.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	keys := make([][]byte, len(texts))
	for i, t := range texts {
		keys[i] = embedKey(e.model, e.dim, t)
	}
	err := e.c.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketEmbed)
		for i, k := range keys {
			if v := b.Get(k); v != nil {
				vec, err := decodeVector(v, e.dim)
				if err != nil {
					return err
				}
				out[i] = vec
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("cache lookup: %w", err)
	}
	var missing []string
	where := map[string][]int{}
	ms := llm.MetersFor(ctx, e.c.opts.Meter)
	for i, v := range out {
		if v != nil {
			ms.Hit(llm.EmbedPurpose, e.model, llm.Usage{})
			continue
		}
		if _, seen := where[texts[i]]; !seen {
			missing = append(missing, texts[i])
		}
		where[texts[i]] = append(where[texts[i]], i)
	}
	if len(missing) == 0 {
		return out, nil
	}
	if e.next == nil {
		return nil, fmt.Errorf("embed %s: %d of %d texts: %w", e.model, len(missing), len(texts), ErrMiss)
	}
	vecs, err := e.next.Embed(ctx, missing)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(missing) {
		return nil, fmt.Errorf("embed %s: %d vectors for %d texts", e.model, len(vecs), len(missing))
	}
	for j, v := range vecs {
		if len(v) != e.dim {
			return nil, fmt.Errorf("embed %s: vector of dimension %d, want %d", e.model, len(v), e.dim)
		}
		for _, i := range where[missing[j]] {
			out[i] = v
		}
	}
	err = e.c.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketEmbed)
		for j, v := range vecs {
			if err := b.Put(keys[where[missing[j]][0]], encodeVector(v)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("cache store: %w", err)
	}
	return out, nil
}

func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// decodeVector decodes a stored vector (little-endian float32s), checking
// its length; the result does not alias the file.
func decodeVector(b []byte, dim int) ([]float32, error) {
	if len(b) != 4*dim {
		return nil, fmt.Errorf("stored vector of %d bytes, want %d", len(b), 4*dim)
	}
	v := make([]float32, dim)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

var (
	_ llm.Chatter  = (*Chatter)(nil)
	_ llm.Embedder = (*Embedder)(nil)
)

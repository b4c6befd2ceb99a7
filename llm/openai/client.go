// Package openai is the client for any OpenAI-compatible server (OpenAI,
// vLLM, Ollama, llama.cpp, ...): one Client implements both llm.Chatter and
// llm.Embedder over github.com/sashabaranov/go-openai, which it alone
// imports.
//
// What it adds to go-openai (see ../../../shared/DEPENDENCIES.md for what
// that library does not do):
//
//   - a deadline on every attempt (Config.Timeout);
//   - retries of transient failures (429, 5xx, 408, 409, empty, truncated or
//     non-JSON bodies, connection errors, an attempt past its deadline) with
//     exponential backoff and jitter, waiting at least as long as the
//     server's Retry-After; permanent failures (400, 401, 403, 404, other
//     4xx, wrong reply shape) are returned at once;
//   - a bound on the number of requests in flight (Config.MaxConcurrent);
//   - several base URLs per role: every call of one episode to the same
//     one (llm.WithEpisode; so a server's prefix cache is reused), other
//     calls to the least-loaded one (ties broken round-robin), a retry
//     preferring another one;
//   - temperature 0 sent as "temperature": 0 (go-openai drops it);
//   - embeddings in batches, L2-normalised, with their dimension checked;
//   - typed errors (*Error, with kinds ErrRateLimited, ErrAuth, ...) that
//     never contain the API key;
//   - usage accounting in an llm.Meter.
//
// This package never reads the environment: cmd/ fills Config from flags,
// OPENAI_API_KEY and OPENAI_BASE_URL.
package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/samem/trainer/llm"
	goopenai "github.com/sashabaranov/go-openai"
)

// Values of Config.Structured.
const (
	StructuredAuto = "auto"
	StructuredOn   = "on"
	StructuredOff  = "off"
)

// DefaultBaseURL is OpenAI's API.
const DefaultBaseURL = "https://api.openai.com/v1"

// Defaults applied by New to zero Config fields.
const (
	DefaultTimeout       = 120 * time.Second
	DefaultRetries       = 5
	DefaultBackoffBase   = 500 * time.Millisecond
	DefaultBackoffMax    = 30 * time.Second
	DefaultMaxConcurrent = 8
	DefaultEmbedBatch    = 128
	// DefaultMaxReplyBytes bounds a reply body: an embeddings batch of 128
	// vectors of 3072 dimensions is about 5 MiB of JSON.
	DefaultMaxReplyBytes = 16 << 20
)

// Doer sends HTTP requests; *http.Client is one.
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// Config configures a Client. Zero fields take the defaults above.
type Config struct {
	// APIKey is sent as "Authorization: Bearer KEY"; "" sends none (local
	// servers). It never appears in errors.
	APIKey string

	// ChatModel is the model of Chat requests (required for Chat).
	ChatModel string
	// ChatBaseURLs are the servers for Chat, e.g. "http://gpu1:8000/v1";
	// requests spread across them. Default: DefaultBaseURL.
	ChatBaseURLs []string
	// NoTemperature leaves temperature out of chat requests altogether
	// (reasoning models such as o1 and gpt-5 reject it). Otherwise
	// Request.Temperature is always sent, 0 included.
	NoTemperature bool
	// Structured says when a request's Schema is sent as response_format
	// json_schema (strict): StructuredAuto (the default) sends it until a
	// server answers 400 naming response_format, then stops for that
	// server and says so once on Log; StructuredOn always sends it (a
	// refusal is an error); StructuredOff never does.
	Structured string
	// Log receives one line per server the first time the client adapts
	// to it (structured outputs turned off, max_completion_tokens used
	// instead of max_tokens). nil: the lines are dropped.
	Log io.Writer

	// EmbedModel is the model of Embed requests (required for Embed).
	EmbedModel string
	// EmbedBaseURLs are the servers for Embed. Default: ChatBaseURLs.
	EmbedBaseURLs []string
	// EmbedDim is the dimension every returned vector must have (required
	// for Embed; Dim reports it).
	EmbedDim int
	// SendDimensions sends EmbedDim as the "dimensions" parameter, which
	// shortens the vectors of models that support it (text-embedding-3-*);
	// other servers may reject it.
	SendDimensions bool
	// EmbedBatch is the number of texts per embeddings request (default 128).
	EmbedBatch int

	// Timeout is the deadline of each attempt (default 120 s).
	Timeout time.Duration
	// Retries is the number of retries after the first attempt (default 5;
	// negative: no retries).
	Retries int
	// BackoffBase and BackoffMax shape the wait before retry n (1-based):
	// BackoffBase*2^(n-1), capped at BackoffMax, then jittered to a uniform
	// value in [half, full]; never shorter than the server's Retry-After
	// (itself capped at MaxRetryAfter). Defaults 0.5 s and 30 s.
	BackoffBase, BackoffMax time.Duration
	// MaxConcurrent bounds the requests in flight through this Client
	// (default 8).
	MaxConcurrent int
	// MaxReplyBytes bounds the body read from one reply (default
	// DefaultMaxReplyBytes); a longer one fails with ErrBadReply, so that a
	// broken or hostile server cannot exhaust memory.
	MaxReplyBytes int64

	// Meter, when not nil, records calls, tokens, retries and errors; chat
	// under Request.Purpose, embeddings under llm.EmbedPurpose.
	Meter *llm.Meter
	// HTTPClient sends the requests (default: an *http.Client keeping
	// MaxConcurrent idle connections per host).
	HTTPClient Doer
	// Rand draws the backoff jitter (default: a fixed seed; the jitter does
	// not change any result, only timing).
	Rand *rand.Rand
	// Sleep waits d or until ctx is done (default: a timer). Tests inject a
	// recorder so retry tests run instantly.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now tells the time, to read Retry-After dates (default time.Now).
	Now func() time.Time
}

// Client is an llm.Chatter and llm.Embedder for OpenAI-compatible servers.
// It is safe for concurrent use.
type Client struct {
	cfg   Config
	key   redactor
	chat  *pool
	embed *pool
	sem   chan struct{}
	randM sync.Mutex
	// withTimeout gives each attempt its deadline (context.WithTimeout;
	// tests of this package replace it so that an attempt's deadline passes
	// at an event instead of a wall-clock instant).
	withTimeout func(context.Context, time.Duration) (context.Context, context.CancelFunc)
}

var (
	_ llm.Chatter  = (*Client)(nil)
	_ llm.Embedder = (*Client)(nil)
)

// New checks cfg, fills in the defaults and returns a Client. Errors wrap
// ErrConfig.
func New(cfg Config) (*Client, error) {
	if len(cfg.ChatBaseURLs) == 0 {
		cfg.ChatBaseURLs = []string{DefaultBaseURL}
	}
	if len(cfg.EmbedBaseURLs) == 0 {
		cfg.EmbedBaseURLs = cfg.ChatBaseURLs
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	switch {
	case cfg.Retries == 0:
		cfg.Retries = DefaultRetries
	case cfg.Retries < 0:
		cfg.Retries = 0
	}
	if cfg.BackoffBase == 0 {
		cfg.BackoffBase = DefaultBackoffBase
	}
	if cfg.BackoffMax == 0 {
		cfg.BackoffMax = DefaultBackoffMax
	}
	if cfg.MaxConcurrent == 0 {
		cfg.MaxConcurrent = DefaultMaxConcurrent
	}
	if cfg.EmbedBatch == 0 {
		cfg.EmbedBatch = DefaultEmbedBatch
	}
	if cfg.MaxReplyBytes <= 0 {
		cfg.MaxReplyBytes = DefaultMaxReplyBytes
	}
	switch {
	case cfg.Timeout < 0:
		return nil, fmt.Errorf("timeout %v: must be positive: %w", cfg.Timeout, ErrConfig)
	case cfg.BackoffBase < 0 || cfg.BackoffMax < cfg.BackoffBase:
		return nil, fmt.Errorf("backoff %v..%v: %w", cfg.BackoffBase, cfg.BackoffMax, ErrConfig)
	case cfg.MaxConcurrent < 0:
		return nil, fmt.Errorf("max concurrent %d: %w", cfg.MaxConcurrent, ErrConfig)
	case cfg.EmbedBatch < 0:
		return nil, fmt.Errorf("embed batch %d: %w", cfg.EmbedBatch, ErrConfig)
	case cfg.EmbedDim < 0:
		return nil, fmt.Errorf("embed dimension %d: %w", cfg.EmbedDim, ErrConfig)
	}
	if cfg.HTTPClient == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = cfg.MaxConcurrent
		cfg.HTTPClient = &http.Client{Transport: tr}
	}
	// go-openai reads whole bodies (json.Decoder, io.ReadAll): bound them.
	cfg.HTTPClient = limitDoer{next: cfg.HTTPClient, max: cfg.MaxReplyBytes}
	if cfg.Rand == nil {
		cfg.Rand = rand.New(rand.NewPCG(1, 2))
	}
	if cfg.Sleep == nil {
		cfg.Sleep = sleep
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	switch cfg.Structured {
	case "":
		cfg.Structured = StructuredAuto
	case StructuredAuto, StructuredOn, StructuredOff:
	default:
		return nil, fmt.Errorf("structured %q: want auto, on or off: %w", cfg.Structured, ErrConfig)
	}
	c := &Client{cfg: cfg, key: redactor(cfg.APIKey), sem: make(chan struct{}, cfg.MaxConcurrent), withTimeout: context.WithTimeout}
	var err error
	if c.chat, err = c.newPool(cfg.ChatBaseURLs, true); err != nil {
		return nil, fmt.Errorf("chat base URL: %w", err)
	}
	if c.embed, err = c.newPool(cfg.EmbedBaseURLs, false); err != nil {
		return nil, fmt.Errorf("embed base URL: %w", err)
	}
	return c, nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// pool is the servers of one role.
type pool struct {
	members []*member
	next    atomic.Uint64
}

type member struct {
	base     string
	client   *goopenai.Client
	inflight atomic.Int64
	// failedAt is when the last attempt through this member failed
	// transiently (Unix nanoseconds; 0 after a success).
	failedAt atomic.Int64
	// answered is set once this server has answered in the API's JSON: a
	// web page from it afterwards is a proxy's passing fault (retried), not
	// a wrong base URL.
	answered atomic.Bool
	// noSchema is set once this server refused response_format
	// (StructuredAuto): schemas are no longer sent to it.
	noSchema atomic.Bool
	// completionTokens is set once this server (or go-openai, for the
	// models it knows) refused max_tokens: the bound is sent as
	// max_completion_tokens instead.
	completionTokens atomic.Bool
}

// Cooldown is how long a server whose last attempt failed transiently is
// passed over while another server of its role is healthy.
const Cooldown = 10 * time.Second

// newPool is the pool of urls; chat pools send a zero temperature (unless
// NoTemperature) and keep a copy of reply bodies for the reasoning fields.
func (c *Client) newPool(urls []string, chat bool) (*pool, error) {
	p := &pool{}
	for _, u := range urls {
		base := strings.TrimRight(strings.TrimSpace(u), "/")
		pu, err := url.Parse(base)
		if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
			return nil, fmt.Errorf("%q: want http(s)://host[:port]/path: %w", u, ErrConfig)
		}
		if pu.User != nil {
			return nil, fmt.Errorf("%q: credentials in a URL are not accepted, use the API key: %w", pu.Redacted(), ErrConfig)
		}
		gc := goopenai.DefaultConfig(c.cfg.APIKey)
		gc.BaseURL = base
		gc.HTTPClient = c.cfg.HTTPClient
		if chat {
			hc := c.cfg.HTTPClient
			if !c.cfg.NoTemperature {
				hc = zeroTempDoer{hc}
			}
			gc.HTTPClient = teeDoer{hc}
		}
		p.members = append(p.members, &member{base: base, client: goopenai.NewClientWithConfig(gc)})
	}
	return p, nil
}

// pick returns the member for the next attempt. A call made for an
// episode (llm.WithEpisode) on its first attempt goes to the episode's own
// member, Route mod n, unless that one failed within Cooldown and another
// has not: all calls of one episode then reach one server, whose prefix
// cache (vLLM, SGLang) holds the episode's growing prompt, and consecutive
// episodes spread over the servers. Any other attempt (a retry, a call
// outside an episode) goes to the member with the fewest requests in flight
// among those that have not failed within Cooldown (all of them when every
// one has), starting the scan at the next one in round-robin order (so
// equal loads alternate) and skipping avoid when there is another member.
// The caller must call done.
func (p *pool) pick(avoid *member, now time.Time, route uint64, sticky bool) *member {
	n := len(p.members)
	cooling := func(m *member) bool {
		f := m.failedAt.Load()
		return f != 0 && now.Sub(time.Unix(0, f)) < Cooldown
	}
	if sticky && avoid == nil {
		m := p.members[route%uint64(n)]
		if !cooling(m) || !slices.ContainsFunc(p.members, func(o *member) bool { return !cooling(o) }) {
			m.inflight.Add(1)
			return m
		}
	}
	start := int(p.next.Add(1)-1) % n
	var best *member
	bestCool := false
	for i := range n {
		m := p.members[(start+i)%n]
		if m == avoid && n > 1 {
			continue
		}
		cool := cooling(m)
		if best == nil || bestCool && !cool ||
			bestCool == cool && m.inflight.Load() < best.inflight.Load() {
			best, bestCool = m, cool
		}
	}
	best.inflight.Add(1)
	return best
}

// done ends an attempt through m; failed reports a transient failure.
func (m *member) done(failed bool, now time.Time) {
	m.inflight.Add(-1)
	if failed {
		m.failedAt.Store(now.UnixNano())
	} else {
		m.failedAt.Store(0)
	}
}

// limitDoer cuts reply bodies at max bytes: reading past them fails with
// ErrBadReply.
type limitDoer struct {
	next Doer
	max  int64
}

func (d limitDoer) Do(req *http.Request) (*http.Response, error) {
	resp, err := d.next.Do(req)
	if resp != nil && resp.Body != nil {
		resp.Body = &limitedBody{rc: resp.Body, left: d.max, max: d.max}
	}
	return resp, err
}

type limitedBody struct {
	rc   io.ReadCloser
	left int64
	max  int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a body of exactly max bytes from a longer one.
		var one [1]byte
		if n, _ := b.rc.Read(one[:]); n == 0 {
			return 0, io.EOF
		}
		return 0, fmt.Errorf("%w: reply body over %d bytes", ErrBadReply, b.max)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }

// zeroTempDoer adds "temperature": 0 to chat request bodies that lack it:
// go-openai's omitempty drops a zero temperature, and the server's default
// (often 0.7 or 1) would apply instead.
type zeroTempDoer struct{ next Doer }

func (d zeroTempDoer) Do(req *http.Request) (*http.Response, error) {
	if req.Body == nil || !strings.HasSuffix(req.URL.Path, "/chat/completions") {
		return d.next.Do(req)
	}
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("read request body: %w", err)
	}
	body = withZeroTemperature(body)
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return d.next.Do(req)
}

// withZeroTemperature returns the JSON object body with "temperature": 0
// added when it has no temperature field; anything else is returned as is.
func withZeroTemperature(body []byte) []byte {
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) != nil {
		return body
	}
	if _, ok := fields["temperature"]; ok {
		return body
	}
	i := bytes.IndexByte(body, '{')
	rest := bytes.TrimSpace(body[i+1:])
	out := make([]byte, 0, len(body)+16)
	out = append(out, body[:i+1]...)
	out = append(out, `"temperature":0`...)
	if len(rest) > 0 && rest[0] != '}' {
		out = append(out, ',')
	}
	return append(out, body[i+1:]...)
}

// attemptFunc makes one request through m with the attempt's context and
// returns the reply headers (nil without a reply) and the error.
type attemptFunc func(ctx context.Context, m *member) (http.Header, error)

// do runs attempt until it succeeds, fails permanently, the retry budget
// is spent or ctx ends.
func (c *Client) do(ctx context.Context, op, purpose, model string, p *pool, attempt attemptFunc) error {
	var last *member
	for n := 1; ; n++ {
		select {
		case c.sem <- struct{}{}:
		case <-ctx.Done():
			return c.fail(ctx, op, purpose, model, last, n-1, failure{kind: ErrTimeout, cause: ctx.Err()})
		}
		ep, sticky := llm.EpisodeFrom(ctx)
		m := p.pick(last, c.cfg.Now(), ep.Route, sticky)
		last = m
		llm.MetersFor(ctx, c.cfg.Meter).Request(purpose, model)
		actx, cancel := c.withTimeout(ctx, c.cfg.Timeout)
		hdr, err := attempt(actx, m)
		f := failure{}
		if err != nil {
			f = classify(err, actx, hdr, c.cfg.Now(), c.key)
			if f.kind == ErrNotAPI && m.answered.Load() {
				f.kind = ErrTruncated
			}
		} else {
			m.answered.Store(true)
		}
		cancel()
		m.done(err != nil && transient(f.kind), c.cfg.Now())
		<-c.sem
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			// The caller gave up: report that, whatever the attempt saw.
			f.cause = ctx.Err()
			if f.kind == ErrTimeout || f.kind == ErrConnection {
				f.kind = ErrTimeout
			}
			return c.fail(ctx, op, purpose, model, m, n, f)
		}
		if !transient(f.kind) || n > c.cfg.Retries {
			return c.fail(ctx, op, purpose, model, m, n, f)
		}
		llm.MetersFor(ctx, c.cfg.Meter).Retry(purpose, model)
		if err := c.cfg.Sleep(ctx, max(c.backoff(n), f.retryAfter)); err != nil {
			f.cause = err
			return c.fail(ctx, op, purpose, model, m, n, f)
		}
	}
}

func (c *Client) fail(ctx context.Context, op, purpose, model string, m *member, attempts int, f failure) error {
	llm.MetersFor(ctx, c.cfg.Meter).Error(purpose, model)
	e := &Error{Op: op, Model: model, Purpose: purpose, Status: f.status, Attempts: attempts,
		Message: f.message, Kind: f.kind, Err: f.cause}
	if m != nil {
		e.BaseURL = m.base
	}
	return e
}

// backoff is the jittered wait before retry n (1-based).
func (c *Client) backoff(n int) time.Duration {
	d := c.cfg.BackoffBase << min(n-1, 30)
	if d > c.cfg.BackoffMax || d <= 0 {
		d = c.cfg.BackoffMax
	}
	c.randM.Lock()
	j := c.cfg.Rand.Int64N(int64(d/2) + 1)
	c.randM.Unlock()
	return d/2 + time.Duration(j)
}

// Chat sends req to a chat server, retrying transient failures. The reply's
// reasoning (reasoning_content, reasoning or thinking beside the content),
// finish reason and reasoning tokens are returned with it.
func (c *Client) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	model := c.cfg.ChatModel
	if model == "" {
		return llm.Response{}, fmt.Errorf("chat: no chat model: %w", ErrConfig)
	}
	creq := goopenai.ChatCompletionRequest{
		Model:           model,
		Seed:            req.Seed,
		Stop:            req.Stop,
		ReasoningEffort: req.ReasoningEffort,
	}
	if !c.cfg.NoTemperature {
		creq.Temperature = float32(req.Temperature)
	}
	for _, m := range req.Messages {
		creq.Messages = append(creq.Messages, goopenai.ChatCompletionMessage{Role: m.Role, Content: m.Content})
	}
	var out llm.Response
	err := c.do(ctx, "chat", req.Purpose, model, c.chat, func(actx context.Context, m *member) (http.Header, error) {
		var hdr http.Header
		var err error
		// A server may refuse a setting it does not take (max_tokens,
		// response_format): the client adapts once per server and sends
		// again at once, within this attempt.
		for range 3 {
			r := c.shape(creq, req, m)
			raw := &rawBody{}
			var resp goopenai.ChatCompletionResponse
			resp, err = m.client.CreateChatCompletion(context.WithValue(actx, rawKey{}, raw), r)
			hdr = resp.Header()
			if err == nil {
				out, err = chatResponse(resp, raw.b, model)
				out.Structured = r.ResponseFormat != nil
				return hdr, err
			}
			if !c.adapt(m, r, err) {
				return hdr, err
			}
			llm.MetersFor(ctx, c.cfg.Meter).Request(req.Purpose, model)
		}
		return hdr, err
	})
	if err != nil {
		return llm.Response{}, err
	}
	ms := llm.MetersFor(ctx, c.cfg.Meter)
	ms.Call(req.Purpose, model, out.Usage)
	ms.NoteServed(model, out.Model, out.Fingerprint)
	llm.CountTokens(ctx, out.Usage)
	return out, nil
}

// shape is creq as it goes to member m: the token bound under the name m
// takes, and the schema when this client and m send schemas.
func (c *Client) shape(creq goopenai.ChatCompletionRequest, req llm.Request, m *member) goopenai.ChatCompletionRequest {
	if req.MaxTokens > 0 {
		if m.completionTokens.Load() {
			creq.MaxCompletionTokens = req.MaxTokens
		} else {
			//lint:ignore SA1019 max_tokens is the field every OpenAI-compatible server reads (vLLM, Ollama, llama.cpp); max_completion_tokens is sent to servers that refuse it
			creq.MaxTokens = req.MaxTokens
		}
	}
	if req.Schema != nil && c.cfg.Structured != StructuredOff && !(c.cfg.Structured == StructuredAuto && m.noSchema.Load()) {
		creq.ResponseFormat = &goopenai.ChatCompletionResponseFormat{
			Type: goopenai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &goopenai.ChatCompletionResponseFormatJSONSchema{
				Name: req.Schema.Name, Schema: json.RawMessage(req.Schema.JSON), Strict: true,
			},
		}
	}
	return creq
}

// adapt reads a refusal of request r by member m: a server (or go-openai,
// for the reasoning models it knows) that wants max_completion_tokens
// instead of max_tokens, or one that does not take response_format while
// Structured is auto. It records what m takes, says so once on Config.Log,
// and reports whether sending again can succeed.
func (c *Client) adapt(m *member, r goopenai.ChatCompletionRequest, err error) bool {
	status, msg := 0, ""
	var apiErr *goopenai.APIError
	var reqErr *goopenai.RequestError
	switch {
	case errors.As(err, &apiErr):
		status, msg = apiErr.HTTPStatusCode, apiErr.Message
	case errors.As(err, &reqErr):
		status, msg = reqErr.HTTPStatusCode, string(reqErr.Body)
	}
	msg = strings.ToLower(msg)
	refused := status == http.StatusBadRequest || status == http.StatusUnprocessableEntity
	switch {
	//lint:ignore SA1019 reading the deprecated field is how a refusal of max_tokens is recognised
	case r.MaxTokens > 0 && (errors.Is(err, goopenai.ErrReasoningModelMaxTokensDeprecated) ||
		refused && (strings.Contains(msg, "max_completion_tokens") ||
			strings.Contains(msg, "max_tokens") && strings.Contains(msg, "support"))):
		if m.completionTokens.CompareAndSwap(false, true) {
			c.logf("%s refuses max_tokens: the token bound is sent as max_completion_tokens from now on", m.base)
		}
		return true
	case r.ResponseFormat != nil && c.cfg.Structured == StructuredAuto && refused &&
		(strings.Contains(msg, "response_format") || strings.Contains(msg, "json_schema")):
		if m.noSchema.CompareAndSwap(false, true) {
			c.logf("%s does not take response_format json_schema: structured outputs are off for it (-structured auto); its replies are read as text", m.base)
		}
		return true
	}
	return false
}

func (c *Client) logf(format string, args ...any) {
	if c.cfg.Log != nil {
		fmt.Fprintf(c.cfg.Log, "llm: "+format+"\n", args...)
	}
}

// chatResponse checks the shape of a chat reply; raw is its body, read
// again for the reasoning fields go-openai does not know.
func chatResponse(resp goopenai.ChatCompletionResponse, raw []byte, model string) (llm.Response, error) {
	if len(resp.Choices) == 0 {
		return llm.Response{}, fmt.Errorf("%w: no choices in the reply", ErrBadReply)
	}
	if resp.Usage.PromptTokens < 0 || resp.Usage.CompletionTokens < 0 {
		return llm.Response{}, fmt.Errorf("%w: negative token counts %d/%d", ErrBadReply,
			resp.Usage.PromptTokens, resp.Usage.CompletionTokens)
	}
	if resp.Model != "" {
		model = resp.Model
	}
	u := llm.Usage{PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens}
	if d := resp.Usage.CompletionTokensDetails; d != nil && d.ReasoningTokens > 0 {
		u.ReasoningTokens = d.ReasoningTokens
	}
	ch := resp.Choices[0]
	reasoning := ch.Message.ReasoningContent
	if reasoning == "" {
		reasoning = reasoningField(raw)
	}
	return llm.Response{
		Text:         ch.Message.Content,
		Reasoning:    reasoning,
		FinishReason: string(ch.FinishReason),
		Model:        model,
		Fingerprint:  resp.SystemFingerprint,
		Usage:        u,
	}, nil
}

// reasoningField is the reasoning of the first choice of a chat reply body
// under the names go-openai does not read: "reasoning" (OpenRouter, newer
// vLLM, Ollama's OpenAI API) and "thinking" (Ollama's own API); "" when
// there is none.
func reasoningField(body []byte) string {
	if len(body) == 0 {
		return ""
	}
	var r struct {
		Choices []struct {
			Message map[string]json.RawMessage `json:"message"`
		} `json:"choices"`
	}
	if json.Unmarshal(body, &r) != nil || len(r.Choices) == 0 {
		return ""
	}
	for _, name := range []string{"reasoning", "thinking"} {
		var s string
		if v, ok := r.Choices[0].Message[name]; ok && json.Unmarshal(v, &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// rawKey carries a *rawBody in a chat attempt's context: teeDoer keeps a
// copy of the reply body there.
type rawKey struct{}

type rawBody struct{ b []byte }

// teeDoer keeps a copy of a successful chat reply's body where the
// request's context asks for one, up to maxTee bytes (a longer body is
// read as usual, and its reasoning fields are not looked for).
type teeDoer struct{ next Doer }

// maxTee bounds the copy teeDoer keeps: far more than any reasoning a
// model writes (32k tokens are about 130 kB).
const maxTee = 4 << 20

func (d teeDoer) Do(req *http.Request) (*http.Response, error) {
	resp, err := d.next.Do(req)
	if raw, ok := req.Context().Value(rawKey{}).(*rawBody); ok && resp != nil && resp.Body != nil && resp.StatusCode == http.StatusOK {
		resp.Body = &teeBody{rc: resp.Body, raw: raw}
	}
	return resp, err
}

type teeBody struct {
	rc   io.ReadCloser
	raw  *rawBody
	over bool
}

func (b *teeBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if !b.over && len(b.raw.b)+n <= maxTee {
		b.raw.b = append(b.raw.b, p[:n]...)
	} else if !b.over {
		b.over, b.raw.b = true, nil
	}
	return n, err
}

func (b *teeBody) Close() error { return b.rc.Close() }

// Model is the embedding model name.
func (c *Client) Model() string { return c.cfg.EmbedModel }

// Dim is Config.EmbedDim.
func (c *Client) Dim() int { return c.cfg.EmbedDim }

// Embed returns one L2-normalised vector per text, sending
// Config.EmbedBatch texts per request. An empty text is sent as a single
// space (OpenAI rejects empty inputs).
func (c *Client) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	model, dim := c.cfg.EmbedModel, c.cfg.EmbedDim
	if model == "" || dim <= 0 {
		return nil, fmt.Errorf("embed: embedding model %q and dimension %d must both be set: %w", model, dim, ErrConfig)
	}
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += c.cfg.EmbedBatch {
		chunk := texts[start:min(start+c.cfg.EmbedBatch, len(texts))]
		ereq := goopenai.EmbeddingRequestStrings{
			Input:          make([]string, len(chunk)),
			Model:          goopenai.EmbeddingModel(model),
			EncodingFormat: goopenai.EmbeddingEncodingFormatFloat,
		}
		for i, t := range chunk {
			if t == "" {
				t = " "
			}
			ereq.Input[i] = t
		}
		if c.cfg.SendDimensions {
			ereq.Dimensions = dim
		}
		var vecs [][]float32
		var usage llm.Usage
		err := c.do(ctx, "embed", llm.EmbedPurpose, model, c.embed, func(actx context.Context, m *member) (http.Header, error) {
			resp, err := m.client.CreateEmbeddings(actx, ereq)
			if err == nil {
				vecs, err = embeddings(resp.Data, len(chunk), dim)
				usage = llm.Usage{PromptTokens: resp.Usage.PromptTokens}
			}
			return resp.Header(), err
		})
		if err != nil {
			return nil, err
		}
		ms := llm.MetersFor(ctx, c.cfg.Meter)
		ms.Call(llm.EmbedPurpose, model, usage)
		llm.CountTokens(ctx, usage)
		ms.Texts(llm.EmbedPurpose, model, len(chunk))
		out = append(out, vecs...)
	}
	return out, nil
}

// embeddings checks an embeddings reply (n vectors of dimension dim, each
// index once, finite, not zero) and returns the vectors in input order,
// L2-normalised.
func embeddings(data []goopenai.Embedding, n, dim int) ([][]float32, error) {
	if len(data) != n {
		return nil, fmt.Errorf("%w: %d embeddings for %d inputs", ErrBadReply, len(data), n)
	}
	out := make([][]float32, n)
	for _, d := range data {
		if d.Index < 0 || d.Index >= n || out[d.Index] != nil {
			return nil, fmt.Errorf("%w: embedding index %d out of range or repeated", ErrBadReply, d.Index)
		}
		if len(d.Embedding) != dim {
			return nil, fmt.Errorf("%w: embedding %d has dimension %d, want %d", ErrBadReply, d.Index, len(d.Embedding), dim)
		}
		var ss float64
		for _, x := range d.Embedding {
			ss += float64(x) * float64(x)
		}
		if ss == 0 || math.IsNaN(ss) || math.IsInf(ss, 0) {
			return nil, fmt.Errorf("%w: embedding %d has norm² %v", ErrBadReply, d.Index, ss)
		}
		inv := 1 / math.Sqrt(ss)
		v := make([]float32, dim)
		for i, x := range d.Embedding {
			v[i] = float32(float64(x) * inv)
		}
		out[d.Index] = v
	}
	return out, nil
}

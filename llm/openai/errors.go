package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"

	goopenai "github.com/sashabaranov/go-openai"
)

// Kinds of failure. Every error from Chat and Embed is an *Error whose Kind
// is one of these, so callers branch with errors.Is(err, openai.ErrRateLimited).
var (
	// ErrRateLimited: the server answered 429 on every attempt (transient).
	ErrRateLimited = errors.New("rate limited")
	// ErrServer: the server answered 5xx (or 408/409) on every attempt (transient).
	ErrServer = errors.New("server error")
	// ErrTimeout: an attempt ran past Config.Timeout on every attempt (transient).
	ErrTimeout = errors.New("request timed out")
	// ErrConnection: the connection failed (refused, reset, closed without an
	// answer) on every attempt (transient).
	ErrConnection = errors.New("connection failed")
	// ErrTruncated: the reply body was empty, cut short or not JSON on every
	// attempt (transient).
	ErrTruncated = errors.New("truncated or malformed reply")
	// ErrAuth: the server answered 401 or 403 (permanent: check the key).
	ErrAuth = errors.New("not authorized")
	// ErrNotFound: the server answered 404 (permanent: check the base URL
	// and model name).
	ErrNotFound = errors.New("not found")
	// ErrBadRequest: the server answered another 4xx, or the client refused
	// the request before sending it (permanent).
	ErrBadRequest = errors.New("bad request")
	// ErrBadReply: a well-formed reply of the wrong shape: no choices, wrong
	// number of embeddings, wrong or inconsistent dimension, non-finite or
	// zero vectors (permanent).
	ErrBadReply = errors.New("unexpected reply")
	// ErrNotAPI: the server answered 200 with an HTML page (or another
	// non-JSON document it declared as such): the base URL points at a web
	// page, not at the OpenAI API (permanent: retrying cannot help).
	ErrNotAPI = errors.New("the server answered with an HTML page, not the OpenAI API: check the base URL (it usually ends in /v1)")
	// ErrConfig: the Config is invalid (returned by New, or by Embed when no
	// embedding model or dimension is configured).
	ErrConfig = errors.New("invalid configuration")
)

// Error is the error Chat and Embed return. It never contains the API key:
// the server's message is scrubbed of it, and the raw reply body is not
// kept.
type Error struct {
	Op       string // "chat" or "embed"
	Model    string // model name sent
	Purpose  string // llm.Request.Purpose, or llm.EmbedPurpose
	BaseURL  string // base URL of the last attempt
	Status   int    // HTTP status of the last attempt; 0 when there was no HTTP answer
	Attempts int    // requests tried, including the first
	// Message is the server's error message (or the start of its body when
	// it was not OpenAI-style JSON), at most 300 bytes, printable characters
	// only, key removed.
	Message string
	// Kind is one of the sentinel errors above.
	Kind error
	// Err is the underlying cause when there is one (context.Canceled,
	// a network error, ...).
	Err error
}

// Error reads like "openai chat gpt-4o-mini (think) at http://host/v1:
// rate limited: status 429 after 5 attempts: Rate limit reached".
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "openai %s %s", e.Op, e.Model)
	if e.Purpose != "" {
		fmt.Fprintf(&b, " (%s)", e.Purpose)
	}
	if e.BaseURL != "" {
		fmt.Fprintf(&b, " at %s", e.BaseURL)
	}
	fmt.Fprintf(&b, ": %v", e.Kind)
	if e.Status != 0 {
		fmt.Fprintf(&b, ": status %d", e.Status)
	}
	fmt.Fprintf(&b, " after %d attempt", e.Attempts)
	if e.Attempts != 1 {
		b.WriteByte('s')
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	return b.String()
}

// Unwrap gives errors.Is and errors.As both the Kind and the cause.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// Transient reports whether the failure was of a kind that is retried: the
// retry budget ran out, or the caller's context ended.
func (e *Error) Transient() bool { return transient(e.Kind) }

func transient(kind error) bool {
	switch kind {
	case ErrRateLimited, ErrServer, ErrTimeout, ErrConnection, ErrTruncated:
		return true
	}
	return false
}

// failure is one attempt's failure, classified.
type failure struct {
	kind       error
	status     int
	message    string
	cause      error
	retryAfter time.Duration // from the reply headers; 0 when absent
}

// classify sorts an attempt's error. attemptCtx is the attempt's context
// (its deadline tells an attempt timeout from other errors); hdr are the
// reply headers (nil when there was no reply).
// The API key is removed from the server's text before it is cut short.
func classify(err error, attemptCtx context.Context, hdr http.Header, now time.Time, key redactor) failure {
	var f failure
	f.retryAfter = parseRetryAfter(hdr, now)
	var apiErr *goopenai.APIError
	var reqErr *goopenai.RequestError
	switch {
	case errors.As(err, &apiErr):
		f.status, f.message = apiErr.HTTPStatusCode, clean(key.string(apiErr.Message))
		f.kind = statusKind(f.status)
	case errors.As(err, &reqErr):
		f.status, f.message = reqErr.HTTPStatusCode, clean(key.string(string(reqErr.Body)))
		f.kind = statusKind(f.status)
	case errors.Is(err, ErrBadReply):
		f.kind, f.message = ErrBadReply, clean(key.string(strings.TrimPrefix(err.Error(), ErrBadReply.Error()+": ")))
	case errors.Is(err, context.DeadlineExceeded) && attemptCtx.Err() != nil:
		f.kind = ErrTimeout
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) && !isNetErr(err):
		f.kind, f.cause = ErrTruncated, key.err(err)
	case isJSONErr(err) && isHTML(hdr, err):
		f.kind = ErrNotAPI
	case isJSONErr(err):
		f.kind, f.cause = ErrTruncated, key.err(err)
	case isNetErr(err):
		f.kind, f.cause = ErrConnection, key.err(err)
	default:
		// Refused by go-openai before sending (e.g. a parameter the model
		// does not accept).
		f.kind, f.cause = ErrBadRequest, key.err(err)
	}
	return f
}

// statusKind maps an HTTP status to a kind.
func statusKind(status int) error {
	switch {
	case status == http.StatusTooManyRequests:
		return ErrRateLimited
	case status >= 500, status == http.StatusRequestTimeout, status == http.StatusConflict:
		return ErrServer
	case status == http.StatusUnauthorized, status == http.StatusForbidden:
		return ErrAuth
	case status == http.StatusNotFound:
		return ErrNotFound
	case status >= 400:
		return ErrBadRequest
	}
	// A 1xx/3xx answer treated as failure by go-openai: the body was not
	// what we asked for.
	return ErrTruncated
}

func isNetErr(err error) bool {
	var ne net.Error
	var ue *url.Error
	return errors.As(err, &ne) || errors.As(err, &ue)
}

// isHTML reports whether a reply that failed to decode as JSON was a web
// page: its Content-Type says text/html, or its body began with '<'.
func isHTML(hdr http.Header, err error) bool {
	if strings.HasPrefix(strings.ToLower(strings.TrimSpace(hdr.Get("Content-Type"))), "text/html") {
		return true
	}
	var se *json.SyntaxError
	return errors.As(err, &se) && strings.Contains(se.Error(), "invalid character '<'")
}

func isJSONErr(err error) bool {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	return errors.As(err, &se) || errors.As(err, &te)
}

// clean keeps at most 300 bytes of printable text from a server message,
// collapsing whitespace (HTML pages and stack traces become one short line).
func clean(s string) string {
	const max = 300
	var b strings.Builder
	space := false
	for _, r := range s {
		if b.Len() >= max {
			b.WriteString("…")
			break
		}
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
		case unicode.IsPrint(r):
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// MaxRetryAfter bounds the wait a server can ask for with Retry-After.
const MaxRetryAfter = 5 * time.Minute

// parseRetryAfter reads how long the server asks to wait: the
// "retry-after-ms" header (milliseconds, sent by OpenAI), else
// "Retry-After" as seconds or as an HTTP date. It returns 0 when neither is
// present or parseable, and never more than MaxRetryAfter.
func parseRetryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	var d time.Duration
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			d = durationOf(ms / 1000)
		}
	}
	if d == 0 {
		v := strings.TrimSpace(h.Get("Retry-After"))
		if s, err := strconv.ParseFloat(v, 64); err == nil {
			if s > 0 {
				d = durationOf(s)
			}
		} else if t, err := http.ParseTime(v); err == nil {
			d = t.Sub(now)
		}
	}
	return min(max(d, 0), MaxRetryAfter)
}

// durationOf converts seconds to a Duration without overflow (NaN and
// huge values give MaxRetryAfter).
func durationOf(sec float64) time.Duration {
	if !(sec < MaxRetryAfter.Seconds()) {
		return MaxRetryAfter
	}
	return time.Duration(sec * float64(time.Second))
}

// redactor removes the API key from text that may echo it.
type redactor string

func (k redactor) string(s string) string {
	if k == "" {
		return s
	}
	return strings.ReplaceAll(s, string(k), "[redacted]")
}

func (k redactor) err(err error) error {
	if err == nil || k == "" || !strings.Contains(err.Error(), string(k)) {
		return err
	}
	return errors.New(k.string(err.Error()))
}

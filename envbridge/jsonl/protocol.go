// Package jsonl drives an environment that runs as a child process and speaks
// the JSON-lines protocol of PROTOCOL.md over its stdin and stdout, so that an
// environment written in any language plugs into the trainer.
package jsonl

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/samem/trainer/envbridge"
)

// Version is the protocol version this driver speaks.
const Version = 1

// Request is one line the driver writes.
type Request struct {
	ID     int64  `json:"id"`
	Method string `json:"method"`
	Params any    `json:"params,omitempty"`
}

// Response is one line the environment writes: Result or Error, never both.
type Response struct {
	ID     int64           `json:"id"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *Error          `json:"error,omitempty"`
}

// Error is the protocol's error object.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Error codes of the protocol (PROTOCOL.md).
const (
	CodeUnknownTask  = "unknown_task"
	CodeUnknownSplit = "unknown_split"
	CodeEpisodeOver  = "episode_over"
	CodeBadRequest   = "bad_request"
	CodeInternal     = "internal"
)

// Error returns the message with its code; errors.Is matches the envbridge
// sentinel of the code (unknown_task is envbridge.ErrUnknownTask, ...).
func (e *Error) Error() string { return fmt.Sprintf("environment error %s: %s", e.Code, e.Message) }

// Unwrap maps the code to its envbridge sentinel.
func (e *Error) Unwrap() error {
	switch e.Code {
	case CodeUnknownTask:
		return envbridge.ErrUnknownTask
	case CodeUnknownSplit:
		return envbridge.ErrUnknownSplit
	case CodeEpisodeOver:
		return envbridge.ErrEpisodeOver
	}
	return nil
}

// Hello is the result of "hello".
type Hello struct {
	Version      int             `json:"version"`
	Name         string          `json:"name"`
	Style        envbridge.Style `json:"style"`
	Splits       []string        `json:"splits"`
	Capabilities []string        `json:"capabilities"`
}

// ErrProtocol is returned for a line that breaks the protocol: not JSON, an
// unexpected id, neither result nor error, a line too long. The error quotes
// the line (cut to 200 bytes).
var ErrProtocol = errors.New("protocol error")

// maxQuote bounds how much of a bad line an error quotes.
const maxQuote = 200

// DecodeResponse parses one line. It checks the shape only; the caller checks
// the id.
func DecodeResponse(line []byte) (Response, error) {
	var r Response
	if err := json.Unmarshal(line, &r); err != nil {
		return Response{}, fmt.Errorf("%w: %v: line %s", ErrProtocol, err, quote(line))
	}
	hasResult := len(r.Result) > 0 && string(r.Result) != "null"
	if hasResult == (r.Error != nil) {
		return Response{}, fmt.Errorf("%w: want exactly one of result and error: line %s", ErrProtocol, quote(line))
	}
	if r.Error != nil && r.Error.Code == "" {
		return Response{}, fmt.Errorf("%w: error object without code: line %s", ErrProtocol, quote(line))
	}
	return r, nil
}

// quote quotes a line for an error message, cut to maxQuote bytes.
func quote(line []byte) string {
	if len(line) > maxQuote {
		return fmt.Sprintf("%q...", line[:maxQuote])
	}
	return fmt.Sprintf("%q", line)
}

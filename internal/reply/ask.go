package reply

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"strings"
	"text/template"

	"github.com/samem/trainer/llm"
)

//go:embed prompts/*.tmpl
var promptFS embed.FS

var prompts = template.Must(template.ParseFS(promptFS, "prompts/*.tmpl"))

// Why a reply is unusable whatever its content. Neither is a transport
// failure: the model answered, and the role asks again or falls back.
var (
	// ErrCutOff: the reply ran into its token limit (finish_reason
	// "length"), so what it holds is at best the start of an answer.
	ErrCutOff = errors.New("reply cut off at its token limit")
	// ErrEmpty: nothing is left of the reply once its reasoning is out.
	ErrEmpty = errors.New("reply holds no answer once its reasoning is taken out")
	// ErrUnusable is returned by Ask when every reply it was allowed to
	// ask for was unusable; it wraps the last reason.
	ErrUnusable = errors.New("no usable reply")
)

// DefaultAttempts is how many calls a role makes for one answer: the
// first, and up to two more after unusable replies.
const DefaultAttempts = 3

// Answer is one model reply as a role reads it.
type Answer struct {
	// Text is the reply's content with its reasoning taken out, trimmed.
	Text string
	// Reasoning is what was taken out: the server's reasoning field and
	// the think blocks of the content. It is for records a user reads,
	// never for memory.
	Reasoning string
	// Structured reports that the server was asked for the JSON of the
	// request's Schema (Text should be such JSON; a role still reads text
	// when it is not, since some servers ignore the request).
	Structured bool
	// Response is the reply as the Chatter returned it.
	Response llm.Response
	// Calls is the number of calls made for the answer (Ask's unusable
	// replies included; 1 from Get).
	Calls int
}

// Get sends req and returns its answer with the reasoning taken out, and
// counts in the meter of ctx a reply that carried reasoning. A reply cut
// off at its token limit, or empty once its reasoning is out, is returned
// with an error wrapping ErrCutOff or ErrEmpty; a failed call returns the
// Chatter's error as it is.
func Get(ctx context.Context, chat llm.Chatter, req llm.Request) (Answer, error) {
	resp, err := chat.Chat(ctx, req)
	if err != nil {
		return Answer{}, err
	}
	text, inContent, found := Strip(resp.Text)
	a := Answer{Text: text, Structured: resp.Structured, Response: resp, Calls: 1}
	field := strings.TrimSpace(resp.Reasoning)
	a.Reasoning = strings.TrimSpace(field + "\n\n" + inContent)
	if found || field != "" {
		llm.NoteReasoning(ctx, req.Purpose)
	}
	switch {
	case resp.CutOff():
		return a, fmt.Errorf("%s: %w", req.Purpose, ErrCutOff)
	case text == "":
		return a, fmt.Errorf("%s: %w", req.Purpose, ErrEmpty)
	}
	return a, nil
}

// Again is orig asked again after its n-th unusable reply (n >= 1): a
// short request for the answer alone, naming what was wrong (why), is
// added to its last user message, and a role that bounds its reply gets
// twice the room per unusable reply (at most llm.MaxRoomDoublings times;
// Request.Again says n). The text names the try, so that the request (and
// its response-cache key) differs from every earlier one.
func Again(orig llm.Request, n int, why error) llm.Request {
	req := orig
	req.Again = n
	if req.MaxTokens > 0 {
		req.MaxTokens <<= min(n, llm.MaxRoomDoublings)
	}
	var b bytes.Buffer
	data := struct {
		Try           int
		CutOff, Empty bool
	}{n + 1, errors.Is(why, ErrCutOff), errors.Is(why, ErrEmpty)}
	if err := prompts.ExecuteTemplate(&b, "again.tmpl", data); err != nil {
		panic(err) // a fixed template with fixed data
	}
	nudge := strings.TrimSpace(b.String())
	req.Messages = append([]llm.Message(nil), orig.Messages...)
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			req.Messages[i].Content += "\n\n" + nudge
			return req
		}
	}
	req.Messages = append(req.Messages, llm.Message{Role: "user", Content: nudge})
	return req
}

// Ask asks for one answer with a budget of attempts calls (0:
// DefaultAttempts). Each usable reply goes to use, which reads it and says
// whether it had to repair decoration, or returns an error when it cannot
// read it. A reply that is cut off, empty, or that use cannot read is
// counted in the meter of ctx as unusable and asked again (Again) while
// the budget lasts; the last one is counted with then, what the role does
// instead, and Ask returns an error wrapping ErrUnusable. A reply use
// reads is counted as parsed. A failed call (the client's retries spent)
// returns its error as it is: that, and only that, may stop a run.
func Ask(ctx context.Context, chat llm.Chatter, req llm.Request, attempts int, then llm.Then, use func(Answer) (repaired bool, err error)) (Answer, error) {
	if attempts <= 0 {
		attempts = DefaultAttempts
	}
	cur := req
	for n := 1; ; n++ {
		a, err := Get(ctx, chat, cur)
		a.Calls = n
		unusable := errors.Is(err, ErrCutOff) || errors.Is(err, ErrEmpty)
		if err != nil && !unusable {
			return a, err
		}
		if err == nil {
			var repaired bool
			if repaired, err = use(a); err == nil {
				llm.NoteParsed(ctx, req.Purpose, repaired)
				return a, nil
			}
		}
		if n >= attempts {
			llm.NoteUnusable(ctx, req.Purpose, then)
			return a, fmt.Errorf("%w after %d calls: %w", ErrUnusable, n, err)
		}
		llm.NoteUnusable(ctx, req.Purpose, llm.AskedAgain)
		cur = Again(req, n, err)
	}
}

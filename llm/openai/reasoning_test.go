package openai

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/llmtest"
)

// TestReasoningFields: the reasoning a server returns beside the content,
// under each name servers use, comes back in Response.Reasoning, with the
// finish reason and the reasoning tokens (counted apart in the meter); a
// reply that is all reasoning ("content": null) has empty Text.
func TestReasoningFields(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply llmtest.Reply
	}{
		{"reasoning_content", llmtest.Reply{Text: "answer", Reasoning: "hmm", ReasoningTokens: 7}},
		{"reasoning", llmtest.Reply{Text: "answer", Reasoning: "hmm", ReasoningField: "reasoning", ReasoningTokens: 7}},
		{"thinking", llmtest.Reply{Text: "answer", Reasoning: "hmm", ReasoningField: "thinking", ReasoningTokens: 7}},
		{"cut off", llmtest.Reply{NullContent: true, Reasoning: "hmm", FinishReason: "length", ReasoningTokens: 7}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, func(llmtest.Call) llmtest.Reply { return tc.reply })
			c, _, meter := newClient(t, []string{srv.URL}, nil)
			resp, err := c.Chat(context.Background(), req("think"))
			if err != nil {
				t.Fatal(err)
			}
			wantText, wantFinish := "answer", "stop"
			if tc.reply.NullContent {
				wantText, wantFinish = "", "length"
			}
			if resp.Text != wantText || resp.Reasoning != "hmm" || resp.FinishReason != wantFinish || resp.Usage.ReasoningTokens != 7 {
				t.Errorf("response %+v", resp)
			}
			if got := meter.Report().ByPurpose["think"].ReasoningTokens; got != 7 {
				t.Errorf("meter: %d reasoning tokens, want 7", got)
			}
			if resp.CutOff() != tc.reply.NullContent {
				t.Errorf("CutOff = %v", resp.CutOff())
			}
		})
	}
}

func schemaReq() llm.Request {
	r := req("summarize")
	r.Schema = &llm.Schema{Name: "summary", JSON: []byte(`{"type":"object","properties":{"summary":{"type":"string"}},"required":["summary"],"additionalProperties":false}`)}
	r.ReasoningEffort = "low"
	r.MaxTokens = 99
	return r
}

// TestStructuredModes: auto and on send the schema as response_format
// json_schema (strict) with the reasoning effort; off sends neither the
// schema nor a response_format; a request without a schema never sends one.
func TestStructuredModes(t *testing.T) {
	for _, mode := range []string{StructuredAuto, StructuredOn, StructuredOff} {
		srv := llmtest.NewServer(t, llmtest.Text(`{"summary":"x"}`))
		c, _, _ := newClient(t, []string{srv.URL}, func(c *Config) { c.Structured = mode })
		resp, err := c.Chat(context.Background(), schemaReq())
		if err != nil {
			t.Fatal(err)
		}
		call := srv.Calls()[0].Chat
		name, schema, strict, ok := call.JSONSchema()
		if want := mode != StructuredOff; ok != want || resp.Structured != want {
			t.Errorf("%s: schema sent %v, Structured %v; want %v", mode, ok, resp.Structured, want)
		}
		if ok && (name != "summary" || !strict || !bytes.Contains(schema, []byte(`"summary"`))) {
			t.Errorf("%s: response_format %s", mode, call.ResponseFormat)
		}
		if call.ReasoningEffort == nil || *call.ReasoningEffort != "low" {
			t.Errorf("%s: reasoning_effort %v", mode, call.ReasoningEffort)
		}
		if _, err := c.Chat(context.Background(), req("summarize")); err != nil {
			t.Fatal(err)
		}
		if srv.Calls()[1].Chat.ResponseFormat != nil {
			t.Errorf("%s: a request without a schema sent %s", mode, srv.Calls()[1].Chat.ResponseFormat)
		}
	}
	if _, err := New(Config{Structured: "maybe"}); !errors.Is(err, ErrConfig) {
		t.Errorf("New with structured maybe: %v", err)
	}
}

// refuse answers 400 with msg to every request that has field in its body,
// and text to the others.
func refuse(field, msg, text string) llmtest.Handler {
	return func(c llmtest.Call) llmtest.Reply {
		if bytes.Contains(c.Body, []byte(`"`+field+`"`)) {
			return llmtest.Reply{Fault: llmtest.Fault{Status: http.StatusBadRequest, Message: msg}}
		}
		return llmtest.Reply{Text: text}
	}
}

// TestStructuredAutoTurnsOff: with auto, a server that refuses
// response_format with a 400 naming it gets the request again at once
// without it (no retry counted, one request more), is noted once on the
// log, and gets no schema from then on; with on, the refusal is an error.
func TestStructuredAutoTurnsOff(t *testing.T) {
	h := refuse("response_format", "Unrecognized request argument supplied: response_format", "the room")
	srv := llmtest.NewServer(t, h)
	var log bytes.Buffer
	c, _, meter := newClient(t, []string{srv.URL}, func(c *Config) { c.Log = &log })
	for range 3 {
		resp, err := c.Chat(context.Background(), schemaReq())
		if err != nil || resp.Structured || resp.Text != "the room" {
			t.Fatalf("Chat = %+v, %v", resp, err)
		}
	}
	if n := srv.ChatRequests(); n != 4 {
		t.Errorf("%d requests, want 4 (one refused, three without the schema)", n)
	}
	st := meter.Report().ByPurpose["summarize"]
	if st.Requests != 4 || st.Retries != 0 || st.Calls != 3 {
		t.Errorf("meter: %+v", st)
	}
	if n := strings.Count(log.String(), "structured outputs are off"); n != 1 || !strings.Contains(log.String(), srv.URL) {
		t.Errorf("log: %q", log.String())
	}

	on := llmtest.NewServer(t, h)
	c, _, _ = newClient(t, []string{on.URL}, func(c *Config) { c.Structured = StructuredOn })
	if _, err := c.Chat(context.Background(), schemaReq()); !errors.Is(err, ErrBadRequest) || !strings.Contains(err.Error(), "response_format") {
		t.Errorf("on, refused: %v", err)
	}
}

// TestMaxCompletionTokens: a server that refuses max_tokens (OpenAI's
// reasoning models) gets the bound as max_completion_tokens, at once and
// from then on, noted once; go-openai's own refusal for the models it knows
// is read the same way.
func TestMaxCompletionTokens(t *testing.T) {
	srv := llmtest.NewServer(t, refuse("max_tokens", "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", "ok"))
	var log bytes.Buffer
	c, _, _ := newClient(t, []string{srv.URL}, func(c *Config) { c.Log = &log })
	for range 2 {
		if _, err := c.Chat(context.Background(), schemaReq()); err != nil {
			t.Fatal(err)
		}
	}
	calls := srv.Calls()
	if len(calls) != 3 || calls[0].Chat.MaxTokens == nil || calls[1].Chat.MaxCompletionTokens == nil || *calls[1].Chat.MaxCompletionTokens != 99 ||
		calls[2].Chat.MaxTokens != nil || calls[2].Chat.MaxCompletionTokens == nil {
		t.Errorf("%d calls; bodies %s / %s", len(calls), calls[0].Body, calls[len(calls)-1].Body)
	}
	if strings.Count(log.String(), "max_completion_tokens") != 1 {
		t.Errorf("log: %q", log.String())
	}

	known := llmtest.NewServer(t, llmtest.Text("ok"))
	c, _, _ = newClient(t, []string{known.URL}, func(c *Config) { c.ChatModel, c.NoTemperature = "gpt-5-mini", true })
	if _, err := c.Chat(context.Background(), schemaReq()); err != nil {
		t.Fatalf("gpt-5-mini: %v", err)
	}
	if got := known.Calls(); len(got) != 1 || got[0].Chat.MaxCompletionTokens == nil || got[0].Chat.MaxTokens != nil {
		t.Errorf("gpt-5-mini: %d calls, body %s", len(got), got[0].Body)
	}
}

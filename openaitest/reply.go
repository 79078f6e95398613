package openaitest

import (
	"errors"
	"fmt"
	"sync"
)

// Reply is what the server answers to one request.
type Reply struct {
	// Content is the assistant's text.
	Content string
	// ToolCalls are the functions the assistant asks to run. Index is filled
	// by the server when streaming; Type defaults to "function".
	ToolCalls []ToolCall
	// Usage is reported with the reply; nil omits it, which the eino-ext
	// client turns into zeros, the "unknown" case agents must handle.
	Usage *Usage
	// FinishReason defaults to "tool_calls" when there are tool calls, else "stop".
	FinishReason string
	// Status, when non-zero, makes the server answer with this HTTP status
	// and an OpenAI-style error body carrying ErrorMessage instead.
	Status int
	// ErrorMessage is the error text sent with Status.
	ErrorMessage string
}

// Responder produces the reply to a valid request. It may be called from
// several goroutines at once when clients run concurrently. Returning an
// error answers HTTP 500 with the error's text.
type Responder func(req *Request) (*Reply, error)

// ErrScriptExhausted is returned (as an HTTP 500) by a Script responder asked
// for more replies than it holds.
var ErrScriptExhausted = errors.New("openaitest: script exhausted")

// Script returns a Responder that answers with replies in order, one per
// request, and fails once they run out. It is the usual way to drive one
// agent run: tool-call replies first, the final answer last.
func Script(replies ...*Reply) Responder {
	var mu sync.Mutex
	next := 0
	return func(*Request) (*Reply, error) {
		mu.Lock()
		defer mu.Unlock()
		if next >= len(replies) {
			return nil, fmt.Errorf("%w after %d replies", ErrScriptExhausted, len(replies))
		}
		r := replies[next]
		next++
		return r, nil
	}
}

// Text is a reply with only text.
func Text(content string) *Reply {
	return &Reply{Content: content}
}

// Call is a reply asking to run one function per call.
func Call(calls ...ToolCall) *Reply {
	return &Reply{ToolCalls: calls}
}

// Fn builds a function ToolCall with the given id, name and JSON arguments.
func Fn(id, name, args string) ToolCall {
	return ToolCall{ID: id, Type: "function", Function: FunctionCall{Name: name, Arguments: args}}
}

// WithUsage returns a copy of r reporting the given usage; total is
// prompt+completion.
func (r *Reply) WithUsage(prompt, completion int) *Reply {
	c := *r
	c.Usage = &Usage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion}
	return &c
}

// WithCachedTokens returns a copy of r whose usage reports cached of the
// prompt tokens as read from the prompt cache. Set the token counts first
// (WithUsage); on a reply without usage the others are 0.
func (r *Reply) WithCachedTokens(cached int) *Reply {
	c := *r
	var u Usage
	if r.Usage != nil {
		u = *r.Usage
	}
	u.PromptTokensDetails = &PromptTokensDetails{CachedTokens: cached}
	c.Usage = &u
	return &c
}

// WithReasoningTokens returns a copy of r whose usage reports reasoning of
// the completion tokens as hidden reasoning, as a reasoning model's reply
// does. Set the token counts first (WithUsage); on a reply without usage the
// others are 0. WithReasoning makes the server report such usage on every
// reply by itself.
func (r *Reply) WithReasoningTokens(reasoning int) *Reply {
	c := *r
	var u Usage
	if r.Usage != nil {
		u = *r.Usage
	}
	u.CompletionTokensDetails = &CompletionTokensDetails{ReasoningTokens: reasoning}
	c.Usage = &u
	return &c
}

// WithPromptUsage wraps next so that every reply it gives, unless it already
// has usage, reports the request's ApproxPromptTokens as prompt tokens and a
// quarter of the reply's own text and arguments as completion tokens. Tests use
// it to make provider-reported usage track the real prompt size.
func WithPromptUsage(next Responder) Responder {
	return func(req *Request) (*Reply, error) {
		r, err := next(req)
		if err != nil || r == nil || r.Usage != nil || r.Status != 0 {
			return r, err
		}
		out := len(r.Content)
		for _, tc := range r.ToolCalls {
			out += len(tc.ID) + len(tc.Function.Name) + len(tc.Function.Arguments)
		}
		return r.WithUsage(req.ApproxPromptTokens(), (out+3)/4), nil
	}
}

package openaitest

import (
	"encoding/json"
	"strings"
)

// Request is one chat-completions request as the server parsed it.
type Request struct {
	// Path is the URL path the request was posted to.
	Path string
	// Model is the requested model name.
	Model string
	// Messages is the conversation sent, oldest first.
	Messages []Message
	// Tools lists the function tools offered to the model.
	Tools []Tool
	// Stream reports whether a server-sent-event stream was asked for.
	Stream bool
	// IncludeUsage reports whether stream_options.include_usage was set.
	IncludeUsage bool
	// MaxTokens is the request's max_tokens; 0 when it sent none.
	MaxTokens int
	// MaxCompletionTokens is the request's max_completion_tokens, the cap
	// reasoning models take instead of max_tokens; 0 when it sent none.
	MaxCompletionTokens int
	// APIKey is the bearer token of the request's Authorization header.
	APIKey string
	// Body is the raw JSON body, for assertions the parsed fields do not cover.
	Body []byte
	// Rejected holds the reason the server refused the request (an HTTP 400
	// or 401 the Responder never saw), or "" when the request was handed to
	// the Responder.
	Rejected string
}

// Message is one message of a request, in wire form.
type Message struct {
	// Role is "system", "user", "assistant" or "tool".
	Role string `json:"role"`
	// Content is the text, in either wire form.
	Content Content `json:"content"`
	// Name is the optional participant or tool name.
	Name string `json:"name,omitempty"`
	// ToolCallID is the call a tool message answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// ToolCalls are the calls an assistant message asks for.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
}

// Content is a message's content, which the wire format allows as either a
// string or a list of typed parts. Text joins the text parts, so tests can
// search the prompt without caring which form the client chose.
type Content struct {
	// Text is the plain text: the string form, or the text parts joined by "\n".
	Text string
	// Parts holds the raw parts when the list form was used.
	Parts []json.RawMessage
}

// UnmarshalJSON accepts the string form, the list-of-parts form, and null.
func (c *Content) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*c = Content{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*c = Content{Text: s}
		return nil
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(b, &parts); err != nil {
		return err
	}
	texts := make([]string, 0, len(parts))
	for _, p := range parts {
		var part struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(p, &part); err == nil && part.Type == "text" {
			texts = append(texts, part.Text)
		}
	}
	*c = Content{Text: strings.Join(texts, "\n"), Parts: parts}
	return nil
}

// MarshalJSON writes the string form, or the parts when there are any.
func (c Content) MarshalJSON() ([]byte, error) {
	if len(c.Parts) > 0 {
		return json.Marshal(c.Parts)
	}
	return json.Marshal(c.Text)
}

// ToolCall is an assistant's request to run a function, in wire form.
type ToolCall struct {
	// Index orders calls within one streamed reply; only chunks carry it.
	Index *int `json:"index,omitempty"`
	// ID pairs the call with its tool result.
	ID string `json:"id,omitempty"`
	// Type is "function".
	Type string `json:"type,omitempty"`
	// Function names the function and carries its arguments.
	Function FunctionCall `json:"function"`
}

// FunctionCall names the function and carries its JSON arguments as text.
type FunctionCall struct {
	// Name is the function's name.
	Name string `json:"name,omitempty"`
	// Arguments is the JSON text of the arguments.
	Arguments string `json:"arguments,omitempty"`
}

// Tool is a tool offered to the model.
type Tool struct {
	// Type is "function".
	Type string `json:"type"`
	// Function is the tool's name, description and JSON-schema parameters.
	Function struct {
		// Name is the tool's name.
		Name string `json:"name"`
		// Description tells the model what the tool does.
		Description string `json:"description,omitempty"`
		// Parameters is the JSON schema of the tool's arguments.
		Parameters json.RawMessage `json:"parameters,omitempty"`
	} `json:"function"`
}

// Usage is the token accounting the server reports for a reply.
type Usage struct {
	// PromptTokens is the size of the request.
	PromptTokens int `json:"prompt_tokens"`
	// CompletionTokens is the size of the reply.
	CompletionTokens int `json:"completion_tokens"`
	// TotalTokens is their sum.
	TotalTokens int `json:"total_tokens"`
	// PromptTokensDetails, when set, says how many prompt tokens were read
	// from the provider's prompt cache.
	PromptTokensDetails *PromptTokensDetails `json:"prompt_tokens_details,omitempty"`
	// CompletionTokensDetails, when set, says how many completion tokens a
	// reasoning model spent on hidden reasoning.
	CompletionTokensDetails *CompletionTokensDetails `json:"completion_tokens_details,omitempty"`
}

// PromptTokensDetails breaks the prompt tokens down.
type PromptTokensDetails struct {
	// CachedTokens is how many prompt tokens were read from the cache.
	CachedTokens int `json:"cached_tokens"`
}

// CompletionTokensDetails breaks the completion tokens down.
type CompletionTokensDetails struct {
	// ReasoningTokens is how many completion tokens were hidden reasoning,
	// billed as output but never shown in the reply.
	ReasoningTokens int `json:"reasoning_tokens"`
}

// requestBody is the subset of the request JSON the server reads.
type requestBody struct {
	Model         string    `json:"model"`
	Messages      []Message `json:"messages"`
	Tools         []Tool    `json:"tools"`
	Stream        bool      `json:"stream"`
	MaxTokens     int       `json:"max_tokens"`
	MaxCompTokens int       `json:"max_completion_tokens"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

type responseMessage struct {
	Role      string     `json:"role"`
	Content   string     `json:"content"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
}

type choice struct {
	Index        int              `json:"index"`
	Message      *responseMessage `json:"message,omitempty"`
	Delta        *responseMessage `json:"delta,omitempty"`
	FinishReason *string          `json:"finish_reason"`
}

type completion struct {
	ID      string   `json:"id"`
	Object  string   `json:"object"`
	Created int64    `json:"created"`
	Model   string   `json:"model"`
	Choices []choice `json:"choices"`
	Usage   *Usage   `json:"usage,omitempty"`
}

type apiError struct {
	Error struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	} `json:"error"`
}

// PromptText is every message's role and text joined, one per line, for
// substring assertions on what the model was sent.
func (r *Request) PromptText() string {
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString(m.Role)
		b.WriteString(": ")
		b.WriteString(m.Content.Text)
		for _, tc := range m.ToolCalls {
			b.WriteString(" -> ")
			b.WriteString(tc.Function.Name)
			b.WriteString(tc.Function.Arguments)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// ApproxPromptTokens estimates the prompt size as one token per four bytes of
// the message texts, tool-call arguments and tool schemas. It lets a
// Responder report usage that grows and shrinks with the prompt, which is what
// drives provider-usage-based compaction in an agent.
func (r *Request) ApproxPromptTokens() int {
	n := 0
	for _, m := range r.Messages {
		n += len(m.Content.Text) + len(m.Role)
		for _, tc := range m.ToolCalls {
			n += len(tc.ID) + len(tc.Function.Name) + len(tc.Function.Arguments)
		}
	}
	for _, t := range r.Tools {
		n += len(t.Function.Name) + len(t.Function.Description) + len(t.Function.Parameters)
	}
	return (n + 3) / 4
}

// System returns the system messages' texts, in order.
func (r *Request) System() []string {
	var out []string
	for _, m := range r.Messages {
		if m.Role == "system" {
			out = append(out, m.Content.Text)
		}
	}
	return out
}

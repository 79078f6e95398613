package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/cloudwego/eino/schema"
)

// The transcript formats the tool reads and writes.
const (
	formatAuto   = "auto"   // decide from the file
	formatEino   = "eino"   // a JSON array of schema.Message
	formatOpenAI = "openai" // a chat-completions request body, or just its messages array
)

// transcript is a conversation read from a file, with what is needed to
// write a compacted one back in the same shape.
type transcript struct {
	format   string
	messages []*schema.Message
	tools    []*schema.ToolInfo
	// body holds the other fields of an OpenAI request body (model,
	// temperature, ...), written back unchanged; nil for a bare array.
	body map[string]json.RawMessage
}

// loadTranscript reads path in format; formatAuto decides as detectFormat
// says. Errors name the file and, for malformed JSON, the line and column.
func loadTranscript(path, format string) (*transcript, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	t, err := parseTranscript(data, format)
	var pe *posError
	switch {
	case errors.As(err, &pe):
		return nil, fmt.Errorf("%s:%w", path, err)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

func parseTranscript(data []byte, format string) (*transcript, error) {
	// Check the syntax of the whole file first, so a malformed file reports
	// where it breaks whatever shape it has.
	var probe any
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, jsonError(data, err)
	}
	if format == formatAuto {
		format = detectFormat(probe)
	}
	t := &transcript{format: format}
	switch format {
	case formatEino:
		if err := json.Unmarshal(data, &t.messages); err != nil {
			return nil, jsonError(data, err)
		}
		for i, m := range t.messages {
			if m == nil {
				return nil, fmt.Errorf("message %d is null", i)
			}
		}
	case formatOpenAI:
		var msgs []oaMessage
		if _, isObject := probe.(map[string]any); isObject {
			if err := json.Unmarshal(data, &t.body); err != nil {
				return nil, jsonError(data, err)
			}
			raw, ok := t.body["messages"]
			if !ok {
				return nil, errors.New(`an OpenAI request body needs a "messages" array`)
			}
			if err := json.Unmarshal(raw, &msgs); err != nil {
				return nil, jsonError(data, offsetIn(data, raw, err))
			}
			if raw, ok := t.body["tools"]; ok {
				var tools []oaTool
				if err := json.Unmarshal(raw, &tools); err != nil {
					return nil, jsonError(data, offsetIn(data, raw, err))
				}
				t.tools = toolInfos(tools)
			}
		} else if err := json.Unmarshal(data, &msgs); err != nil {
			return nil, jsonError(data, err)
		}
		converted, err := fromOpenAI(msgs)
		if err != nil {
			return nil, err
		}
		t.messages = converted
	default:
		return nil, fmt.Errorf("unknown format %q", format)
	}
	return t, nil
}

// einoOnlyKeys are schema.Message JSON keys that OpenAI messages never have.
var einoOnlyKeys = []string{"tool_name", "extra", "response_meta", "reasoning_content",
	"user_input_multi_content", "assistant_output_multi_content", "multi_content"}

// detectFormat tells OpenAI from Eino JSON. An object is an OpenAI request
// body. An array is OpenAI when some message has a shape only OpenAI uses
// (array or null content, the developer role), or when it has tool results
// and no message uses a key only Eino writes: Eino names a tool result's
// tool (tool_name), OpenAI leaves it to the call, so reading such an array as
// Eino would lose every tool name.
func detectFormat(probe any) string {
	switch v := probe.(type) {
	case map[string]any:
		return formatOpenAI
	case []any:
		toolResults, einoKeys := false, false
		for _, m := range v {
			obj, ok := m.(map[string]any)
			if !ok {
				continue
			}
			content, hasContent := obj["content"]
			if _, isArray := content.([]any); isArray || (hasContent && content == nil) || obj["role"] == "developer" {
				return formatOpenAI
			}
			toolResults = toolResults || obj["role"] == "tool"
			for _, k := range einoOnlyKeys {
				if _, ok := obj[k]; ok {
					einoKeys = true
				}
			}
		}
		if toolResults && !einoKeys {
			return formatOpenAI
		}
	}
	return formatEino
}

// offsetIn shifts the offset of an error from decoding raw, a slice of data,
// so that it points into data.
func offsetIn(data, raw []byte, err error) error {
	start := int64(bytes.Index(data, raw))
	if start < 0 {
		return err
	}
	if t, ok := err.(*json.UnmarshalTypeError); ok {
		c := *t
		c.Offset += start
		return &c
	}
	if s, ok := err.(*json.SyntaxError); ok {
		c := *s
		c.Offset += start
		return &c
	}
	return err
}

// encode writes messages in t's format and shape.
func (t *transcript) encode(messages []*schema.Message) ([]byte, error) {
	if t.format == formatEino {
		return json.MarshalIndent(messages, "", "  ")
	}
	out, err := toOpenAI(messages)
	if err != nil {
		return nil, err
	}
	if t.body == nil {
		return json.MarshalIndent(out, "", "  ")
	}
	body := make(map[string]json.RawMessage, len(t.body))
	for k, v := range t.body {
		body[k] = v
	}
	raw, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	body["messages"] = raw
	return json.MarshalIndent(body, "", "  ")
}

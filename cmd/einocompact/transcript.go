package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
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

// stdinName is what --in - reads, and how messages name it.
const stdinName = "stdin"

// readInput reads the transcript --in names: "-" is stdin, anything else a
// path.
func readInput(in, format string, stdin io.Reader) (*transcript, error) {
	if in == "-" {
		return readTranscript(stdin, stdinName, format, 0)
	}
	return loadTranscript(in, format)
}

// loadTranscript reads path in format; formatAuto decides as detectFormat
// says. Errors name the file and, for malformed JSON, the line and column.
//
// A JSON array in a regular file, the shape of long transcripts, is decoded
// one message at a time, so the file's bytes are never all in memory beside
// the messages; that takes two passes (detecting the format, then
// decoding). Request bodies, any file the stream cannot read, and anything
// that cannot be read twice (a pipe, /dev/stdin) are read once, whole, by
// readTranscript, which also says where a problem is.
func loadTranscript(path, format string) (*transcript, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return readTranscript(f, path, format, 0)
	}
	if t, err := streamTranscript(f, format); err == nil {
		return t, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return readTranscript(f, path, format, st.Size())
}

// readTranscript reads all of r, a transcript called name in errors, and
// parses it in format; size, when known, sizes the buffer.
func readTranscript(r io.Reader, name, format string, size int64) (*transcript, error) {
	var buf bytes.Buffer
	if size > 0 && size < math.MaxInt-bytes.MinRead {
		buf.Grow(int(size) + bytes.MinRead)
	}
	if _, err := buf.ReadFrom(r); err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	data := buf.Bytes()
	t, err := parseTranscript(data, format)
	var pe *posError
	switch {
	case errors.As(err, &pe):
		return nil, fmt.Errorf("%s:%w", name, err)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return t, nil
}

// errNotStreamed and errObject send a file that streamTranscript does not
// read to the whole-file path.
var (
	errNotStreamed = errors.New("not a JSON array")
	errObject      = fmt.Errorf("%w: an object", errNotStreamed)
)

// streamTranscript reads a transcript that is a JSON array of messages, one
// message at a time: a first pass detects the format when it is formatAuto,
// a second decodes, so f must be seekable. Any error means "read it whole
// instead", which reports the problem properly.
func streamTranscript(f io.ReadSeeker, format string) (*transcript, error) {
	if format == formatAuto {
		var err error
		if format, err = detectFormat(f); err != nil {
			return nil, err
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
	}
	t := &transcript{format: format}
	var err error
	switch format {
	case formatEino:
		err = eachElement(f, func(dec *json.Decoder) error {
			var m *schema.Message
			if err := dec.Decode(&m); err != nil {
				return err
			}
			if m == nil {
				return errors.New("null message")
			}
			t.messages = append(t.messages, m)
			return nil
		})
	case formatOpenAI:
		var msgs []oaMessage
		err = eachElement(f, func(dec *json.Decoder) error {
			msgs = append(msgs, oaMessage{})
			return dec.Decode(&msgs[len(msgs)-1])
		})
		if err == nil {
			t.messages, err = fromOpenAI(msgs)
		}
	default:
		err = fmt.Errorf("unknown format %q", format)
	}
	if err != nil {
		return nil, err
	}
	return t, nil
}

// eachElement calls fn to decode each element of the JSON array r holds,
// failing with errObject when r holds an object, errNotStreamed when it
// holds anything else, and with an error when anything follows the array.
func eachElement(r io.Reader, fn func(dec *json.Decoder) error) error {
	dec := json.NewDecoder(bufio.NewReaderSize(r, 1<<16))
	switch tok, err := dec.Token(); {
	case tok == json.Delim('{'):
		return errObject
	case err != nil || tok != json.Delim('['):
		return errNotStreamed
	}
	for dec.More() {
		if err := fn(dec); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // the closing bracket
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the array")
	}
	return nil
}

func parseTranscript(data []byte, format string) (*transcript, error) {
	// Check the syntax of the whole file first, so a malformed file reports
	// where it breaks whatever shape it has.
	if !json.Valid(data) {
		var probe any
		return nil, jsonError(data, json.Unmarshal(data, &probe))
	}
	isObject := bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("{"))
	if format == formatAuto {
		var err error
		if format, err = detectFormat(bytes.NewReader(data)); err != nil {
			return nil, err
		}
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
		if isObject {
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

// probeMessage is what detectFormat looks at in a message, decoded without
// keeping its text.
type probeMessage struct {
	Role    string    `json:"role"`
	Content jsonShape `json:"content"`
	// Keys that OpenAI messages never have and Eino writes.
	ToolName                    present `json:"tool_name"`
	Extra                       present `json:"extra"`
	ResponseMeta                present `json:"response_meta"`
	ReasoningContent            present `json:"reasoning_content"`
	UserInputMultiContent       present `json:"user_input_multi_content"`
	AssistantOutputMultiContent present `json:"assistant_output_multi_content"`
	MultiContent                present `json:"multi_content"`
}

func (p *probeMessage) einoOnly() bool {
	return bool(p.ToolName || p.Extra || p.ResponseMeta || p.ReasoningContent || p.UserInputMultiContent ||
		p.AssistantOutputMultiContent || p.MultiContent)
}

// present records that a key is there, whatever its value.
type present bool

func (p *present) UnmarshalJSON([]byte) error { *p = true; return nil }

// jsonShape records the first byte of a value: '[' for an array, 'n' for
// null, 0 when the key is missing.
type jsonShape byte

func (s *jsonShape) UnmarshalJSON(b []byte) error { *s = jsonShape(b[0]); return nil }

// detectFormat tells OpenAI from Eino JSON, reading r one message at a time.
// An object is an OpenAI request body. An array is OpenAI when some message
// has a shape only OpenAI uses (array or null content, the developer role),
// or when it has tool results and no message uses a key only Eino writes:
// Eino names a tool result's tool (tool_name), OpenAI leaves it to the call,
// so reading such an array as Eino would lose every tool name. An error
// means r is not valid JSON.
func detectFormat(r io.Reader) (string, error) {
	toolResults, einoKeys, openAI := false, false, false
	err := eachElement(r, func(dec *json.Decoder) error {
		var p probeMessage
		err := dec.Decode(&p)
		var typ *json.UnmarshalTypeError
		if err != nil && !errors.As(err, &typ) {
			return err // a value of the wrong type is skipped, as a non-object element is
		}
		openAI = openAI || p.Content == '[' || p.Content == 'n' || p.Role == "developer"
		toolResults = toolResults || p.Role == "tool"
		einoKeys = einoKeys || p.einoOnly()
		return nil
	})
	switch {
	case errors.Is(err, errObject):
		return formatOpenAI, nil // a request body
	case errors.Is(err, errNotStreamed):
		return formatEino, nil // not a transcript: decoding says why
	case err != nil:
		return "", err
	case openAI || toolResults && !einoKeys:
		return formatOpenAI, nil
	}
	return formatEino, nil
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

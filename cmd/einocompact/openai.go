package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/schema"
	"github.com/eino-contrib/jsonschema"
)

// oaMessage is one message of an OpenAI chat-completions request.
type oaMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content,omitempty"` // a string, an array of parts, or null
	Name       string          `json:"name,omitempty"`
	ToolCalls  []oaToolCall    `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
}

type oaToolCall struct {
	ID       string     `json:"id"`
	Type     string     `json:"type"`
	Function oaFunction `json:"function"`
}

type oaFunction struct {
	Name        string             `json:"name"`
	Arguments   string             `json:"arguments,omitempty"`
	Description string             `json:"description,omitempty"`
	Parameters  *jsonschema.Schema `json:"parameters,omitempty"`
}

type oaTool struct {
	Type     string     `json:"type"`
	Function oaFunction `json:"function"`
}

// oaPart is one element of an array content.
type oaPart struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	ImageURL *struct {
		URL    string `json:"url"`
		Detail string `json:"detail,omitempty"`
	} `json:"image_url,omitempty"`
	InputAudio *struct {
		Data   string `json:"data"`
		Format string `json:"format"`
	} `json:"input_audio,omitempty"`
	File *struct {
		FileData string `json:"file_data,omitempty"`
		FileID   string `json:"file_id,omitempty"`
		Filename string `json:"filename,omitempty"`
	} `json:"file,omitempty"`
}

// fromOpenAI converts OpenAI messages to Eino's. Tool results take their
// tool's name from the call they answer, since OpenAI results do not carry it.
func fromOpenAI(in []oaMessage) ([]*schema.Message, error) {
	out := make([]*schema.Message, 0, len(in))
	toolNames := map[string]string{}
	for i, m := range in {
		text, parts, err := oaContent(m.Content)
		if err != nil {
			return nil, fmt.Errorf("messages[%d].content: %w", i, err)
		}
		msg := &schema.Message{Name: m.Name, Content: text}
		switch m.Role {
		case "system", "developer":
			msg.Role = schema.System
		case "user":
			msg.Role = schema.User
			if len(parts) > 0 {
				msg.Content, msg.UserInputMultiContent = "", parts
			}
		case "assistant":
			msg.Role = schema.Assistant
			for _, tc := range m.ToolCalls {
				msg.ToolCalls = append(msg.ToolCalls, schema.ToolCall{ID: tc.ID, Type: tc.Type,
					Function: schema.FunctionCall{Name: tc.Function.Name, Arguments: tc.Function.Arguments}})
				toolNames[tc.ID] = tc.Function.Name
			}
		case "tool":
			msg.Role, msg.ToolCallID, msg.ToolName = schema.Tool, m.ToolCallID, toolNames[m.ToolCallID]
		default:
			return nil, fmt.Errorf("messages[%d].role: %q is not system, developer, user, assistant or tool", i, m.Role)
		}
		out = append(out, msg)
	}
	return out, nil
}

// oaContent reads a content value: the text of a string, or for an array the
// text parts joined by "\n" plus Eino parts for everything (so user messages
// keep their attachments).
func oaContent(raw json.RawMessage) (string, []schema.MessageInputPart, error) {
	trimmed := strings.TrimSpace(string(raw))
	if trimmed == "" || trimmed == "null" {
		return "", nil, nil
	}
	if trimmed[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return s, nil, err
	}
	if trimmed[0] != '[' {
		return "", nil, fmt.Errorf("must be a string, an array of parts or null")
	}
	var ps []oaPart
	if err := json.Unmarshal(raw, &ps); err != nil {
		return "", nil, err
	}
	var texts []string
	parts := make([]schema.MessageInputPart, 0, len(ps))
	for k, p := range ps {
		switch {
		case p.Type == "text":
			texts = append(texts, p.Text)
			parts = append(parts, schema.MessageInputPart{Type: schema.ChatMessagePartTypeText, Text: p.Text})
		case p.ImageURL != nil:
			u := p.ImageURL.URL
			parts = append(parts, schema.MessageInputPart{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageInputImage{
				MessagePartCommon: schema.MessagePartCommon{URL: &u}, Detail: schema.ImageURLDetail(p.ImageURL.Detail)}})
		case p.InputAudio != nil:
			d := p.InputAudio.Data
			parts = append(parts, schema.MessageInputPart{Type: schema.ChatMessagePartTypeAudioURL, Audio: &schema.MessageInputAudio{
				MessagePartCommon: schema.MessagePartCommon{Base64Data: &d, MIMEType: "audio/" + p.InputAudio.Format}}})
		case p.File != nil:
			f := schema.MessageInputFile{Name: p.File.Filename}
			if p.File.FileData != "" {
				d := p.File.FileData
				f.URL = &d
			}
			if p.File.FileID != "" {
				f.Extra = map[string]any{"file_id": p.File.FileID}
			}
			parts = append(parts, schema.MessageInputPart{Type: schema.ChatMessagePartTypeFileURL, File: &f})
		default:
			return "", nil, fmt.Errorf("part %d: unsupported type %q", k, p.Type)
		}
	}
	return strings.Join(texts, "\n"), parts, nil
}

// toOpenAI converts Eino messages back. Compaction markers have no place in
// the OpenAI format and are dropped; keep Eino JSON to keep them.
func toOpenAI(in []*schema.Message) ([]oaMessage, error) {
	out := make([]oaMessage, 0, len(in))
	for _, m := range in {
		o := oaMessage{Role: string(m.Role), Name: m.Name, ToolCallID: m.ToolCallID}
		if m.Role == schema.Tool {
			o.Name = ""
		}
		var content any = m.Content
		if len(m.UserInputMultiContent) > 0 {
			content = oaParts(m.UserInputMultiContent)
		} else if m.Content == "" && len(m.ToolCalls) > 0 {
			content = nil
		}
		raw, err := json.Marshal(content)
		if err != nil {
			return nil, err
		}
		o.Content = raw
		for _, tc := range m.ToolCalls {
			typ := tc.Type
			if typ == "" {
				typ = "function"
			}
			o.ToolCalls = append(o.ToolCalls, oaToolCall{ID: tc.ID, Type: typ,
				Function: oaFunction{Name: tc.Function.Name, Arguments: tc.Function.Arguments}})
		}
		out = append(out, o)
	}
	return out, nil
}

func oaParts(in []schema.MessageInputPart) []map[string]any {
	out := make([]map[string]any, 0, len(in))
	for _, p := range in {
		switch {
		case p.Image != nil && p.Image.URL != nil:
			img := map[string]any{"url": *p.Image.URL}
			if p.Image.Detail != "" {
				img["detail"] = p.Image.Detail
			}
			out = append(out, map[string]any{"type": "image_url", "image_url": img})
		case p.Audio != nil && p.Audio.Base64Data != nil:
			out = append(out, map[string]any{"type": "input_audio", "input_audio": map[string]any{
				"data": *p.Audio.Base64Data, "format": strings.TrimPrefix(p.Audio.MIMEType, "audio/")}})
		case p.File != nil:
			f := map[string]any{}
			if p.File.Name != "" {
				f["filename"] = p.File.Name
			}
			if p.File.URL != nil {
				f["file_data"] = *p.File.URL
			}
			if id, ok := p.File.Extra["file_id"]; ok {
				f["file_id"] = id
			}
			out = append(out, map[string]any{"type": "file", "file": f})
		default:
			out = append(out, map[string]any{"type": "text", "text": p.Text})
		}
	}
	return out
}

// toolInfos converts the request's tool schemas so they count like the
// agent's: with no provider usage recorded, the hook counts them too.
func toolInfos(in []oaTool) []*schema.ToolInfo {
	out := make([]*schema.ToolInfo, 0, len(in))
	for _, t := range in {
		info := &schema.ToolInfo{Name: t.Function.Name, Desc: t.Function.Description}
		if t.Function.Parameters != nil {
			info.ParamsOneOf = schema.NewParamsOneOfByJSONSchema(t.Function.Parameters)
		}
		out = append(out, info)
	}
	return out
}

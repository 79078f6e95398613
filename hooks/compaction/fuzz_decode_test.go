package compaction

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/cloudwego/eino/schema"
)

// Decoders that turn fuzz bytes into conversations and Extra values. They
// never fail: a short input just yields a short conversation, so every byte
// string the fuzzer tries is a valid test case.

// fzCanary stands for attachment data and reasoning. It holds NUL bytes,
// which fzReader.str never yields, so text taken from the fuzz input can
// never contain it by accident: any canary in a rendering is a leak.
const fzCanary = "\x00CANARY-iVBORw0KGgo\x00"

// fzReader hands out the fuzz bytes one decision at a time; once they run
// out it answers zeros.
type fzReader struct {
	b []byte
	i int
}

func (r *fzReader) more() bool { return r.i < len(r.b) }

func (r *fzReader) byte() byte {
	if r.i >= len(r.b) {
		return 0
	}
	r.i++
	return r.b[r.i-1]
}

func (r *fzReader) intn(n int) int { return int(r.byte()) % n }

// str takes a length byte and up to that many bytes (at most max), with NUL
// replaced so the canary stays unforgeable. Invalid UTF-8 is kept on purpose.
func (r *fzReader) str(max int) string {
	n := min(int(r.byte()), max)
	end := min(r.i+n, len(r.b))
	s := strings.ReplaceAll(string(r.b[r.i:end]), "\x00", " ")
	r.i = end
	return s
}

// fzDataURL is a data: URL carrying the canary, in one of the spellings a
// careless renderer might let through.
func fzDataURL(r *fzReader) string {
	prefixes := []string{"data:", "DATA:", " data:", "Data:", "\tdata:"}
	return prefixes[r.intn(len(prefixes))] + "image/png;base64," + fzCanary
}

// fzExtra is part metadata: scalar values from the fuzz input and, now and
// then, inline data that must never be rendered.
func fzExtra(r *fzReader) map[string]any {
	n := r.intn(4)
	if n == 0 {
		return nil
	}
	out := make(map[string]any, n)
	for range n {
		k := r.str(8)
		switch r.intn(6) {
		case 0:
			out[k] = r.str(16)
		case 1:
			out[k] = int(int8(r.byte()))
		case 2:
			out[k] = float64(r.byte()) / 4
		case 3:
			out[k] = r.byte()%2 == 0
		case 4:
			out[k] = fzDataURL(r)
		default:
			out[k] = map[string]any{"nested": fzCanary}
		}
	}
	return out
}

// fzCommon is an attachment's common part; its data is always the canary,
// either as Base64Data or as a data: URL, and sometimes a real http URL too.
func fzCommon(r *fzReader) schema.MessagePartCommon {
	c := schema.MessagePartCommon{MIMEType: r.str(12), Extra: fzExtra(r)}
	data := fzCanary
	switch r.intn(3) {
	case 0:
		c.Base64Data = &data
	case 1:
		u := fzDataURL(r)
		c.URL = &u
	default:
		u := "https://example.com/" + r.str(10)
		c.URL, c.Base64Data = &u, &data
	}
	return c
}

// fzParts appends attachment or text parts to m in the three places Eino
// keeps them. It returns how many attachments it added; every part is built
// unambiguously (one payload, matching Type) so that number is exact.
func fzParts(r *fzReader, m *schema.Message) int {
	attachments := 0
	for range r.intn(4) {
		kind := r.intn(5)
		if kind > 0 {
			attachments++
		}
		switch r.intn(3) {
		case 0:
			p := schema.MessageInputPart{Extra: fzExtra(r)}
			switch kind {
			case 0:
				p.Type, p.Text = schema.ChatMessagePartTypeText, r.str(20)
			case 1:
				p.Type, p.Image = schema.ChatMessagePartTypeImageURL, &schema.MessageInputImage{MessagePartCommon: fzCommon(r)}
			case 2:
				p.Type, p.Audio = schema.ChatMessagePartTypeAudioURL, &schema.MessageInputAudio{MessagePartCommon: fzCommon(r)}
			case 3:
				p.Type, p.Video = schema.ChatMessagePartTypeVideoURL, &schema.MessageInputVideo{MessagePartCommon: fzCommon(r)}
			default:
				p.Type, p.File = schema.ChatMessagePartTypeFileURL, &schema.MessageInputFile{MessagePartCommon: fzCommon(r), Name: r.str(10)}
			}
			m.UserInputMultiContent = append(m.UserInputMultiContent, p)
		case 1:
			p := schema.MessageOutputPart{Extra: fzExtra(r)}
			switch kind {
			case 0:
				p.Type, p.Text = schema.ChatMessagePartTypeText, r.str(20)
			case 1:
				p.Type, p.Image = schema.ChatMessagePartTypeImageURL, &schema.MessageOutputImage{MessagePartCommon: fzCommon(r)}
			case 2:
				p.Type, p.Audio = schema.ChatMessagePartTypeAudioURL, &schema.MessageOutputAudio{MessagePartCommon: fzCommon(r)}
			default:
				// Output parts have no file kind: a video stands in.
				p.Type, p.Video = schema.ChatMessagePartTypeVideoURL, &schema.MessageOutputVideo{MessagePartCommon: fzCommon(r)}
			}
			m.AssistantGenMultiContent = append(m.AssistantGenMultiContent, p)
			// A reasoning part is never an attachment and never rendered.
			m.AssistantGenMultiContent = append(m.AssistantGenMultiContent, schema.MessageOutputPart{
				Type: schema.ChatMessagePartTypeReasoning, Reasoning: &schema.MessageOutputReasoning{Text: fzCanary}})
		default:
			var p schema.ChatMessagePart
			u := fzDataURL(r)
			switch kind {
			case 0:
				p.Type, p.Text = schema.ChatMessagePartTypeText, r.str(20)
			case 1:
				p.Type, p.ImageURL = schema.ChatMessagePartTypeImageURL, &schema.ChatMessageImageURL{URL: u, URI: u, MIMEType: r.str(10), Extra: fzExtra(r)}
			case 2:
				p.Type, p.AudioURL = schema.ChatMessagePartTypeAudioURL, &schema.ChatMessageAudioURL{URL: u, URI: u, MIMEType: r.str(10), Extra: fzExtra(r)}
			case 3:
				p.Type, p.VideoURL = schema.ChatMessagePartTypeVideoURL, &schema.ChatMessageVideoURL{URL: u, URI: u, MIMEType: r.str(10), Extra: fzExtra(r)}
			default:
				p.Type, p.FileURL = schema.ChatMessagePartTypeFileURL, &schema.ChatMessageFileURL{URL: u, URI: u, MIMEType: r.str(10), Name: r.str(10), Extra: fzExtra(r)}
			}
			m.MultiContent = append(m.MultiContent, p)
		}
	}
	return attachments
}

// fzRenderable decodes any mix of messages, roles and parts, for rendering.
// It returns the conversation and its attachment count.
func fzRenderable(data []byte) ([]*schema.Message, int) {
	r := &fzReader{b: data}
	roles := []schema.RoleType{schema.System, schema.User, schema.Assistant, schema.Tool, "", "critic"}
	var out []*schema.Message
	attachments := 0
	for r.more() && len(out) < 24 {
		if r.intn(16) == 0 {
			out = append(out, nil)
			continue
		}
		m := &schema.Message{Role: roles[r.intn(len(roles))], Content: r.str(40), ReasoningContent: fzCanary}
		if m.Role == schema.Tool {
			m.ToolCallID, m.ToolName = r.str(6), r.str(8)
		}
		for range r.intn(3) {
			m.ToolCalls = append(m.ToolCalls, schema.ToolCall{ID: r.str(6), Function: schema.FunctionCall{Name: r.str(8), Arguments: r.str(24)}})
		}
		attachments += fzParts(r, m)
		if r.intn(4) == 0 {
			m.Extra = map[string]any{MetaKey: fzMarkerValue(r, 0)}
		}
		out = append(out, m)
	}
	return out, attachments
}

// fzMarkerValue builds an arbitrary value for Extra[MetaKey]: well-formed
// markers, near misses, and values of types no JSON decoder would produce.
func fzMarkerValue(r *fzReader, depth int) any {
	type myString string
	type myMap map[myString]any
	if depth > 3 {
		return nil
	}
	switch r.intn(20) {
	case 0:
		return nil
	case 1:
		return r.str(12)
	case 2:
		return map[string]any{"strategy": r.str(12), "summarized_messages": fzNumber(r)}
	case 3:
		return map[string]any{"strategy": fzMarkerValue(r, depth+1), "summarized_messages": fzMarkerValue(r, depth+1)}
	case 4:
		return map[string]string{"strategy": r.str(12)}
	case 5:
		return myMap{"strategy": r.str(12), "summarized_messages": fzNumber(r)}
	case 6:
		return map[int]any{int(r.byte()): r.str(4)}
	case 7:
		return []any{fzMarkerValue(r, depth+1), fzMarkerValue(r, depth+1)}
	case 8:
		var m map[string]any
		return m
	case 9:
		var m *map[string]any
		return m
	case 10:
		return struct{ Strategy string }{r.str(8)}
	case 11:
		return make(chan int)
	case 12:
		return func() {}
	case 13:
		return map[string]any{"strategy": StrategySummarization, "summarized_messages": fzNumber(r)}
	case 14:
		return map[myString]int{"strategy": int(r.byte())}
	case 15:
		m := map[string]any{}
		m["self"] = m
		m["strategy"] = r.str(6)
		return m
	case 16:
		var v any
		_ = json.Unmarshal([]byte(r.str(40)), &v)
		return v
	case 17:
		d := json.NewDecoder(strings.NewReader(r.str(40)))
		d.UseNumber()
		var v any
		_ = d.Decode(&v)
		return v
	case 18:
		return map[string]any{"strategy": "", "summarized_messages": 1}
	default:
		return fzNumber(r)
	}
}

// fzNumber is a count in one of the many numeric types a marker may carry,
// including values no count can take.
func fzNumber(r *fzReader) any {
	b := r.byte()
	switch r.intn(14) {
	case 0:
		return int(b)
	case 1:
		return int64(-int64(b))
	case 2:
		return float64(b) + 0.5
	case 3:
		return math.NaN()
	case 4:
		return math.Inf(1)
	case 5:
		return json.Number(fmt.Sprint(b))
	case 6:
		return json.Number(r.str(10))
	case 7:
		return uint64(math.MaxUint64 - uint64(b))
	case 8:
		return float32(b)
	case 9:
		return int8(b)
	case 10:
		return 1e300
	case 11:
		return -float64(b)
	case 12:
		return fmt.Sprint(b)
	default:
		return uint(b)
	}
}

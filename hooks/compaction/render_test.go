package compaction

import (
	"reflect"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
)

func strPtr(s string) *string { return &s }

func imagePart(mime string, extra map[string]any) schema.MessageInputPart {
	return schema.MessageInputPart{Type: schema.ChatMessagePartTypeImageURL,
		Image: &schema.MessageInputImage{MessagePartCommon: schema.MessagePartCommon{MIMEType: mime, Extra: extra}}}
}

func filePart(name, mime string, extra map[string]any) schema.MessageInputPart {
	return schema.MessageInputPart{Type: schema.ChatMessagePartTypeFileURL,
		File: &schema.MessageInputFile{Name: name, MessagePartCommon: schema.MessagePartCommon{MIMEType: mime, Extra: extra}}}
}

func textPart(s string) schema.MessageInputPart {
	return schema.MessageInputPart{Type: schema.ChatMessagePartTypeText, Text: s}
}

func fetchTool() *schema.ToolInfo {
	return &schema.ToolInfo{Name: "fetch", Desc: "Fetch a document about a topic.",
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
			"topic": {Type: schema.String, Desc: "the topic to fetch", Required: true}})}
}

// TestRenderGolden ports the golden rendering of §C.5. Go differs in two
// places, both by the porting rules: arguments are rendered as stored
// ({"b":2,"a":1} stays unsorted and compact), and Eino tool messages have no
// error flag, so the "(error)" result is an ordinary result.
func TestRenderGolden(t *testing.T) {
	t.Parallel()
	lookMsg := &schema.Message{Role: schema.User, UserInputMultiContent: []schema.MessageInputPart{
		textPart("look:"), imagePart("image/png", nil), filePart("report.pdf", "application/pdf", nil)}}
	assistantCall := schema.AssistantMessage("let me look", []schema.ToolCall{{Function: schema.FunctionCall{Name: "search", Arguments: `{"b":2,"a":1}`}}})
	msgs := []*schema.Message{
		sys("rules"), user("what is haystack?"), assistantCall,
		schema.ToolMessage("found it", "", schema.WithToolName("search")),
		schema.ToolMessage("boom", "", schema.WithToolName("search")),
		lookMsg, {Role: schema.Assistant},
	}
	want := strings.Join([]string{
		"[system] rules",
		"[user] what is haystack?",
		"[assistant] let me look",
		`[assistant -> tool_call] search({"b":2,"a":1})`,
		"[tool:search] found it",
		"[tool:search] boom",
		"[user] look:",
		"[user] <image>",
		"[user] <file: report.pdf>",
		"[assistant] <no content>",
	}, "\n")
	if got := Render(msgs, RenderOptions{}); got != want {
		t.Errorf("Render =\n%s\nwant\n%s", got, want)
	}
}

func TestRenderCases(t *testing.T) {
	t.Parallel()
	withID := RenderOptions{ToolCallIDs: true, Attachment: DescribeAttachment}
	tests := []struct {
		name string
		msgs []*schema.Message
		opts RenderOptions
		want string
	}{
		{"empty", nil, RenderOptions{}, ""},
		{"two messages", []*schema.Message{user("a"), asst("b")}, RenderOptions{}, "[user] a\n[assistant] b"},
		{"tool result text", []*schema.Message{result("c1", "hello")}, RenderOptions{}, "[tool:search] hello"},
		{"tool result with id", []*schema.Message{result("c1", "hello")}, withID, "[tool:search id=c1] hello"},
		{"tool result parts concatenate", []*schema.Message{{Role: schema.Tool, ToolName: "t", UserInputMultiContent: []schema.MessageInputPart{textPart("a"), textPart("b")}}}, RenderOptions{}, "[tool:t] ab"},
		{"tool result with image", []*schema.Message{{Role: schema.Tool, ToolName: "browse", UserInputMultiContent: []schema.MessageInputPart{textPart("see "), imagePart("image/png", nil)}}}, RenderOptions{}, "[tool:browse] see <image>"},
		{"unnamed tool", []*schema.Message{schema.ToolMessage("x", "c9")}, RenderOptions{}, "[tool:unknown] x"},
		{"call with id", []*schema.Message{call("c1")}, withID, "[assistant -> tool_call id=c1] search({})"},
		{"empty arguments render as {}", []*schema.Message{schema.AssistantMessage("", []schema.ToolCall{{ID: "x", Function: schema.FunctionCall{Name: "now", Arguments: "  "}}})}, RenderOptions{}, "[assistant -> tool_call] now({})"},
		{"parallel calls", []*schema.Message{call("a", "b")}, RenderOptions{}, "[assistant -> tool_call] search({})\n[assistant -> tool_call] search({})"},
		{"reasoning never rendered", []*schema.Message{{Role: schema.Assistant, Content: "answer", ReasoningContent: "secret chain of thought",
			AssistantGenMultiContent: []schema.MessageOutputPart{{Type: schema.ChatMessagePartTypeReasoning, Reasoning: &schema.MessageOutputReasoning{Text: "more secrets"}}}}}, RenderOptions{}, "[assistant] answer"},
		{"assistant output text parts", []*schema.Message{{Role: schema.Assistant, AssistantGenMultiContent: []schema.MessageOutputPart{{Type: schema.ChatMessagePartTypeText, Text: "one"}, {Type: schema.ChatMessagePartTypeText, Text: "two"}}}}, RenderOptions{}, "[assistant] one\ntwo"},
		{"legacy multi content", []*schema.Message{{Role: schema.User, MultiContent: []schema.ChatMessagePart{{Type: schema.ChatMessagePartTypeText, Text: "hi"}, {Type: schema.ChatMessagePartTypeImageURL, ImageURL: &schema.ChatMessageImageURL{URL: "https://x.test/a.png", MIMEType: "image/png"}}}}}, withID, "[user] hi\n[user] <image: image/png, url=https://x.test/a.png>"},
		{"nil message", []*schema.Message{nil}, RenderOptions{}, "[unknown] <no content>"},
		{"custom placeholder reaches tool results", []*schema.Message{
			{Role: schema.User, UserInputMultiContent: []schema.MessageInputPart{textPart("look:"), imagePart("", nil)}},
			{Role: schema.Tool, ToolName: "browse", UserInputMultiContent: []schema.MessageInputPart{textPart("screenshot: "), imagePart("", nil)}},
		}, RenderOptions{Attachment: func(Attachment) string { return "<redacted>" }}, "[user] look:\n[user] <redacted>\n[tool:browse] screenshot: <redacted>"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Render(tc.msgs, tc.opts); got != tc.want {
				t.Errorf("Render = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestDescribeAttachment ports A1-A5 and the Go-specific value formats.
func TestDescribeAttachment(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a    Attachment
		want string
	}{
		{"A1 image", Attachment{Kind: AttachmentImage, MIMEType: "image/png"}, "<image: image/png>"},
		{"A2 image with path", Attachment{Kind: AttachmentImage, MIMEType: "image/png", Extra: map[string]any{"file_path": "/tmp/shot.png"}}, "<image: image/png, file_path=/tmp/shot.png>"},
		{"A3 file", Attachment{Kind: AttachmentFile, Name: "q3.pdf", MIMEType: "application/pdf"}, "<file: q3.pdf, application/pdf>"},
		{"A4 unnamed file", Attachment{Kind: AttachmentFile, MIMEType: "application/pdf", Extra: map[string]any{"page": 4}}, "<file: unnamed, application/pdf, page=4>"},
		{"A5 nested dropped", Attachment{Kind: AttachmentImage, MIMEType: "image/png", Extra: map[string]any{"boxes": []any{[]any{1, 2}}}}, "<image: image/png>"},
		{"unknown type", Attachment{Kind: AttachmentAudio}, "<audio: unknown type>"},
		{"scalars sorted and formatted", Attachment{Kind: AttachmentVideo, MIMEType: "video/mp4", Extra: map[string]any{"z": true, "a": 1.5, "m": int64(7), "n": nil}}, "<video: video/mp4, a=1.5, m=7, z=true>"},
		{"url shown", Attachment{Kind: AttachmentImage, MIMEType: "image/jpeg", URL: "https://example.com/cat.jpg"}, "<image: image/jpeg, url=https://example.com/cat.jpg>"},
		{"data url in extra hidden", Attachment{Kind: AttachmentImage, MIMEType: "image/png", Extra: map[string]any{"src": "data:image/png;base64,iVBORw0KGgo="}}, "<image: image/png>"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := DescribeAttachment(tc.a); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestNoInlineDataEverRendered proves base64 payloads and data: URLs stay out
// of every rendering, in every content field.
func TestNoInlineDataEverRendered(t *testing.T) {
	t.Parallel()
	const canary = "QkFTRTY0Q0FOQVJZ"
	data := canary + strings.Repeat("A", 400)
	dataURL := "data:image/png;base64," + data
	common := schema.MessagePartCommon{Base64Data: &data, URL: &dataURL, MIMEType: "image/png", Extra: map[string]any{"raw": data}}
	msgs := []*schema.Message{
		{Role: schema.User, UserInputMultiContent: []schema.MessageInputPart{{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageInputImage{MessagePartCommon: common}}}},
		{Role: schema.Assistant, AssistantGenMultiContent: []schema.MessageOutputPart{{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageOutputImage{MessagePartCommon: common}}}},
		{Role: schema.Tool, ToolName: "shot", UserInputMultiContent: []schema.MessageInputPart{{Type: schema.ChatMessagePartTypeFileURL, File: &schema.MessageInputFile{Name: "a.bin", MessagePartCommon: common}}}},
		{Role: schema.User, MultiContent: []schema.ChatMessagePart{{Type: schema.ChatMessagePartTypeImageURL, ImageURL: &schema.ChatMessageImageURL{URL: dataURL}}}},
	}
	for _, opts := range []RenderOptions{{}, {ToolCallIDs: true, Attachment: DescribeAttachment}} {
		out := Render(msgs, opts)
		if strings.Contains(out, canary) || strings.Contains(out, "data:") {
			t.Fatalf("inline data rendered: %q", out)
		}
	}
}

func TestRenderTools(t *testing.T) {
	t.Parallel()
	// The reference's fetch schema is 208 characters; our stable JSON uses the
	// same key order and separators, so the number carries over.
	got := RenderTools([]*schema.ToolInfo{fetchTool()})
	want := `[{"description": "Fetch a document about a topic.", "name": "fetch", "parameters": {"properties": {"topic": {"description": "the topic to fetch", "type": "string"}}, "required": ["topic"], "type": "object"}}]`
	if got != want {
		t.Errorf("RenderTools =\n%s\nwant\n%s", got, want)
	}
	if runeLen(got) != 208 {
		t.Errorf("length %d, want 208", runeLen(got))
	}
	if RenderTools(nil) != "" {
		t.Error("no tools must render empty")
	}
	noParams := RenderTools([]*schema.ToolInfo{{Name: "now", Desc: "<time>"}})
	if noParams != `[{"description": "<time>", "name": "now"}]` {
		t.Errorf("no-params tool = %s (HTML must not be escaped)", noParams)
	}
}

func TestRenderDoesNotMutate(t *testing.T) {
	t.Parallel()
	msgs := fresh()
	before := cloneAll(msgs)
	_ = Render(msgs, RenderOptions{ToolCallIDs: true, Attachment: DescribeAttachment})
	if !reflect.DeepEqual(msgs, before) {
		t.Fatal("Render mutated its input")
	}
}

func TestFreshRendersAsReference(t *testing.T) {
	t.Parallel()
	want := []int{14, 12, 35, 170, 35, 182}
	for i, m := range fresh() {
		if got := count(fc1, m); got != want[i] {
			t.Errorf("message %d: %d chars, want %d (%q)", i, got, want[i], RenderMessage(m, RenderOptions{}))
		}
	}
	if got := count(fc1, fresh()...); got != 453 {
		t.Errorf("FRESH under FC1 = %d, want 453", got)
	}
	if got := count(fc4, fresh()...); got != 113 {
		t.Errorf("FRESH under FC4 = %d, want 113", got)
	}
}

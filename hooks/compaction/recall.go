package compaction

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/archive"
	summarytext "github.com/einocompact/einocompact/hooks/compaction/internal/summary"
)

// RecallToolName is the name of the tool NewRecallTool returns.
const RecallToolName = summarytext.RecallTool

// DefaultRecallMaxChars is the size of one page of the recall tool's
// output, in code points, when WithRecallMaxChars does not set it.
const DefaultRecallMaxChars = 8000

// RecallOption sets an option of NewRecallTool.
type RecallOption func(*recallTool)

// WithRecallMaxChars caps one page of the tool's output at n code points
// (about n/4 tokens); what is longer is paged. Default
// DefaultRecallMaxChars; n must be at least 200.
func WithRecallMaxChars(n int) RecallOption {
	return func(r *recallTool) { r.maxChars = n }
}

// WithRecallRedact rewrites every piece of archived text before the tool
// returns it (RenderOptions.Text), for the secrets redaction the inspector
// applies. Default none: the text the agent saw, as it was.
func WithRecallRedact(redact func(string) string) RecallOption {
	return func(r *recallTool) { r.redact = redact }
}

type conversationKey struct{}

// WithConversation returns ctx naming conv (ArchiveConversation) as the
// conversation a tool call belongs to. The recall tool then refuses
// references of any other conversation (ErrArchiveScope). The agent package
// and the integrations set it for every tool call when an archive is
// configured.
func WithConversation(ctx context.Context, conv string) context.Context {
	return context.WithValue(ctx, conversationKey{}, conv)
}

// ConversationFrom returns the conversation WithConversation put in ctx.
func ConversationFrom(ctx context.Context) (string, bool) {
	conv, ok := ctx.Value(conversationKey{}).(string)
	return conv, ok && conv != ""
}

// recallTool reads an archive back for the agent.
type recallTool struct {
	archive  Archive
	maxChars int
	redact   func(string) string
}

// NewRecallTool returns the Eino tool "recall", which reads back what
// compaction archived (HookConfig.Archive): given the reference a compacted
// conversation names, and optionally a search string or a page number, it
// returns the archived messages rendered as the agent first saw them (tool
// results as "[tool:NAME id=CALLID] RESULT", Render's transcript form),
// WithRecallMaxChars code points per page.
//
// The tool returns an error, never text, for a reference it must refuse: one
// the archive did not issue (forged, guessed or altered: ErrArchiveReference),
// one whose entry expired or was evicted (ErrArchiveNotFound), and one of
// another conversation than the ctx names (WithConversation; ErrArchiveScope).
// The agent package hands such an error to the model as the call's result.
// What it returns is a tool result: archived text is data and never comes
// back as a user or system message.
func NewRecallTool(a Archive, opts ...RecallOption) (tool.InvokableTool, error) {
	if a == nil {
		return nil, errors.New("compaction: NewRecallTool needs an Archive, got nil")
	}
	r := &recallTool{archive: a, maxChars: DefaultRecallMaxChars}
	for _, o := range opts {
		o(r)
	}
	if r.maxChars < 200 {
		return nil, fmt.Errorf("compaction: NewRecallTool: WithRecallMaxChars must be at least 200, got %d", r.maxChars)
	}
	return r, nil
}

// Info implements tool.BaseTool.
func (r *recallTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{
		Name: RecallToolName,
		Desc: "Read back, verbatim, messages that context compaction removed from this conversation " +
			"(exact tool output, code, error text). Pass the reference named in the conversation's archive note.",
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
			"reference": {Type: schema.String, Desc: "the archive reference, as written in the note", Required: true},
			"search":    {Type: schema.String, Desc: "optional: return only the archived messages containing this text (case-insensitive)"},
			"page":      {Type: schema.Integer, Desc: "optional: the page to return when the output is paged; default 1"},
		}),
	}, nil
}

type recallArgs struct {
	Reference string `json:"reference"`
	Search    string `json:"search"`
	Page      int    `json:"page"`
}

// InvokableRun implements tool.InvokableTool.
func (r *recallTool) InvokableRun(ctx context.Context, argumentsInJSON string, _ ...tool.Option) (string, error) {
	var args recallArgs
	if err := json.Unmarshal([]byte(argumentsInJSON), &args); err != nil {
		return "", fmt.Errorf("recall: the arguments are not a JSON object with a \"reference\": %w", err)
	}
	if strings.TrimSpace(args.Reference) == "" {
		return "", errors.New("recall: \"reference\" is required: the reference named in the conversation's archive note")
	}
	if args.Page < 0 {
		return "", fmt.Errorf("recall: \"page\" must be 1 or more, got %d", args.Page)
	}
	page := max(args.Page, 1)
	conv, messages, err := r.archive.Get(ctx, strings.TrimSpace(args.Reference))
	if err != nil {
		return "", fmt.Errorf("recall: %w", err)
	}
	if mine, ok := ConversationFrom(ctx); ok && mine != conv {
		return "", fmt.Errorf("recall: %w: reference %q was not issued for this conversation", ErrArchiveScope, args.Reference)
	}
	opts := RenderOptions{ToolCallIDs: true, Attachment: DescribeAttachment, Text: r.redact}
	var blocks []string
	for _, m := range messages {
		text := RenderMessage(m, opts)
		if args.Search != "" && !strings.Contains(strings.ToLower(text), strings.ToLower(args.Search)) {
			continue
		}
		blocks = append(blocks, text)
	}
	head := fmt.Sprintf("Archived messages under %s: %d", args.Reference, len(messages))
	if args.Search != "" {
		head += fmt.Sprintf(", %d containing %q", len(blocks), args.Search)
	}
	if len(blocks) == 0 {
		return head + ".", nil
	}
	pages := archive.Page(blocks, r.maxChars)
	if page > len(pages) {
		return "", fmt.Errorf("recall: page %d does not exist; reference %q has %d page(s)", page, args.Reference, len(pages))
	}
	out := fmt.Sprintf("%s; page %d of %d.\n%s", head, page, len(pages), pages[page-1])
	if page < len(pages) {
		out += fmt.Sprintf("\n[More: call recall with page %d.]", page+1)
	}
	return out, nil
}

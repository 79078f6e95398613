package archive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/render"
)

// minRecallChars is the smallest page Check accepts: a page must hold a
// rendered message's head and some of its text.
const minRecallChars = 200

// Recall is the recall tool (compaction.NewRecallTool, whose godoc says
// what it returns and what it refuses): it reads an entry back, keeps the
// messages a search names, renders them as the transcript does and pages
// them. Set its fields, then Check it.
type Recall struct {
	// Name is the tool's name: compaction.RecallToolName.
	Name string
	// Archive reads an entry back: the compaction.Archive the tool reads.
	Archive interface {
		Get(ctx context.Context, ref string) (conv string, messages []*schema.Message, err error)
	}
	// Scope returns the conversation ctx names (compaction.ConversationFrom);
	// a reference of another one is refused with ErrScope.
	Scope func(ctx context.Context) (conv string, ok bool)
	// MaxChars caps one page of output, in code points.
	MaxChars int
	// Redact, when set, rewrites every piece of archived text shown
	// (render.Options.Text).
	Redact func(string) string
}

// Check returns the error NewRecallTool reports for r's settings: no
// archive, or a page shorter than minRecallChars.
func (r *Recall) Check() error {
	if r.Archive == nil {
		return errors.New("compaction: NewRecallTool needs an Archive, got nil")
	}
	if r.MaxChars < minRecallChars {
		return fmt.Errorf("compaction: NewRecallTool: WithRecallMaxChars must be at least %d, got %d", minRecallChars, r.MaxChars)
	}
	return nil
}

// Info implements tool.BaseTool.
func (r *Recall) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{
		Name: r.Name,
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
func (r *Recall) InvokableRun(ctx context.Context, argumentsInJSON string, _ ...tool.Option) (string, error) {
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
	conv, messages, err := r.Archive.Get(ctx, strings.TrimSpace(args.Reference))
	if err != nil {
		return "", fmt.Errorf("recall: %w", err)
	}
	if r.Scope != nil {
		if mine, ok := r.Scope(ctx); ok && mine != conv {
			return "", fmt.Errorf("recall: %w: reference %q was not issued for this conversation", ErrScope, args.Reference)
		}
	}
	blocks := r.render(messages, args.Search)
	head := fmt.Sprintf("Archived messages under %s: %d", args.Reference, len(messages))
	if args.Search != "" {
		head += fmt.Sprintf(", %d containing %q", len(blocks), args.Search)
	}
	if len(blocks) == 0 {
		return head + ".", nil
	}
	pages := paginate(blocks, r.MaxChars)
	if page > len(pages) {
		return "", fmt.Errorf("recall: page %d does not exist; reference %q has %d page(s)", page, args.Reference, len(pages))
	}
	out := fmt.Sprintf("%s; page %d of %d.\n%s", head, page, len(pages), pages[page-1])
	if page < len(pages) {
		out += fmt.Sprintf("\n[More: call recall with page %d.]", page+1)
	}
	return out, nil
}

// render writes each message as the transcript shows it (tool-call ids,
// the summarizer's attachment placeholders), keeping those that contain
// search, case-insensitively, when search is set.
func (r *Recall) render(messages []*schema.Message, search string) []string {
	opts := render.Options{ToolCallIDs: true, Attachment: render.Describe, Text: r.Redact}
	var blocks []string
	for _, m := range messages {
		var b strings.Builder
		render.Message(&b, m, opts)
		text := b.String()
		if search != "" && !strings.Contains(strings.ToLower(text), strings.ToLower(search)) {
			continue
		}
		blocks = append(blocks, text)
	}
	return blocks
}

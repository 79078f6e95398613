package compaction

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction/internal/archive"
	summarytext "github.com/einocompact/einocompact/hooks/compaction/internal/summary"
)

// Archiving what a compaction removes (HookConfig.Archive). The hook does
// it where every compaction is applied (apply), so it works for any
// compactor: summaries, pruned tool results, a sliding window, the model-free
// fallback, prepared and shared results alike.

// checkArchive refuses an Archive interface holding a nil pointer, which
// would fail only at the first compaction.
func checkArchive(a Archive) error {
	if a == nil {
		return nil
	}
	if v := reflect.ValueOf(a); v.Kind() == reflect.Pointer && v.IsNil() {
		return fmt.Errorf("compaction: HookConfig.Archive is a nil %T; leave it nil for no archive", a)
	}
	return nil
}

// goneForGood is the clause of DefaultOmissionNote that archiving makes
// untrue.
const goneForGood = "; their content is gone for good."

// archiveRemoved archives the messages of before (the conversation as it
// stands) that after (the compacted one) no longer holds, compared by
// content, and returns after with the pointer line added to the messages
// that replaced them, recounted. Without an archive, or when nothing was
// removed, it returns after and left as they are. A failure to archive is
// logged and costs only the pointer: the compaction is applied as without
// an archive.
func (h *CompactionHook) archiveRemoved(ctx context.Context, before, after []*schema.Message, left int, r *Report) ([]*schema.Message, int) {
	if h.archive == nil {
		return after, left
	}
	removed := missingFrom(before, after)
	added := missingIndexes(after, before)
	if len(removed) == 0 {
		return after, left
	}
	conv, ok := ArchiveConversation(before)
	if !ok {
		return after, left
	}
	ref, err := h.archive.Put(ctx, conv, removed)
	if err != nil {
		h.log.WarnContext(ctx, "compaction archive failed; what this compaction removes is not kept", "step", r.Step, "error", err.Error())
		return after, left
	}
	r.ArchiveRef = ref
	targets := slices.DeleteFunc(slices.Clone(added), func(i int) bool { return !HasMarkerKey(after[i]) })
	if len(targets) == 0 && len(added) > 0 {
		targets = added[:1]
	}
	if len(targets) == 0 {
		h.log.WarnContext(ctx, "compaction archived messages but wrote no message to point at them", "step", r.Step, "archive_ref", ref)
		return after, left
	}
	out := slices.Clone(after)
	line := summarytext.Pointer(len(removed), ref)
	for _, i := range targets {
		out[i] = withArchivePointer(after[i], line, ref)
	}
	n, err := h.counter.Count(ctx, out, nil)
	if err != nil {
		h.log.WarnContext(ctx, "compaction archive: counting the pointed result failed; applying it without the pointer", "step", r.Step, "error", err.Error())
		return after, left
	}
	return out, n
}

// withArchivePointer returns a copy of m ending with line and with ref in
// its marker (which ArchiveConversation follows across compactions).
func withArchivePointer(m *schema.Message, line, ref string) *schema.Message {
	c := *m
	text := strings.Replace(m.Content, goneForGood, ".", 1)
	if text == "" {
		c.Content = line
	} else {
		c.Content = text + "\n" + line
	}
	c.Extra = maps.Clone(m.Extra)
	if c.Extra == nil {
		c.Extra = map[string]any{}
	}
	fields, ok := MarkerFields(m)
	if !ok {
		fields = NewMarker("archive", 0, nil)
	}
	fields[archive.MarkerKey] = ref
	c.Extra[MetaKey] = fields
	return &c
}

// missingFrom returns the messages of a, in order, that b does not hold,
// by content (digest.Same), each occurrence counted once.
func missingFrom(a, b []*schema.Message) []*schema.Message {
	idx := missingIndexes(a, b)
	out := make([]*schema.Message, len(idx))
	for k, i := range idx {
		out[k] = a[i]
	}
	return out
}

// missingIndexes returns the indexes of the messages of a that b does not
// hold, by content: a message held twice in a and once in b is missing once.
func missingIndexes(a, b []*schema.Message) []int {
	held := make(map[Digest]int, len(b))
	for _, m := range b {
		held[MessageDigest(m)]++
	}
	var out []int
	for i, m := range a {
		d := MessageDigest(m)
		if held[d] > 0 {
			held[d]--
			continue
		}
		out = append(out, i)
	}
	return out
}

var (
	_ hooks.ToolProvider = (*CompactionHook)(nil)
	_ hooks.ToolScoper   = (*CompactionHook)(nil)
)

// ProvidedTools implements hooks.ToolProvider: with an archive, the recall
// tool over it (NewRecallTool's defaults), which an agent running the
// hook's registry offers its model; without, none.
func (h *CompactionHook) ProvidedTools(context.Context) ([]tool.BaseTool, error) {
	if h.archive == nil {
		return nil, nil
	}
	recall, err := NewRecallTool(h.archive)
	if err != nil {
		return nil, err
	}
	return []tool.BaseTool{recall}, nil
}

// ScopeToolCall implements hooks.ToolScoper: with an archive, it names the
// conversation of state in ctx (WithConversation), so the recall tool
// refuses another conversation's references.
func (h *CompactionHook) ScopeToolCall(ctx context.Context, state *hooks.State) context.Context {
	if h.archive == nil || state == nil {
		return ctx
	}
	if conv, ok := ArchiveConversation(state.Messages); ok {
		return WithConversation(ctx, conv)
	}
	return ctx
}

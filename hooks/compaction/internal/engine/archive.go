package engine

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/archive"
	"github.com/einocompact/einocompact/hooks/compaction/internal/digest"
	"github.com/einocompact/einocompact/hooks/compaction/internal/message"
	"github.com/einocompact/einocompact/hooks/compaction/internal/share"
	summarytext "github.com/einocompact/einocompact/hooks/compaction/internal/summary"
	"github.com/einocompact/einocompact/internal/marker"
)

// Archiving what a compaction removes (HookConfig.Archive). The hook does
// it where every compaction is applied (apply), so it works for any
// compactor: summaries, pruned tool results, a sliding window, the model-free
// fallback, prepared and shared results alike.

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
func (h *Engine) archiveRemoved(ctx context.Context, before, after []*schema.Message, left int, r *Report) ([]*schema.Message, int) {
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
	targets := slices.DeleteFunc(slices.Clone(added), func(i int) bool { return !message.HasKey(after[i]) })
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
	fields, ok := message.CopyFields(m)
	if !ok {
		fields = message.NewFields("archive", 0, nil)
	}
	fields[archive.MarkerKey] = ref
	c.Extra[marker.Key] = fields
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
	held := make(map[digest.Sum]int, len(b))
	for _, m := range b {
		held[digest.Of(m)]++
	}
	var out []int
	for i, m := range a {
		d := digest.Of(m)
		if held[d] > 0 {
			held[d]--
			continue
		}
		out = append(out, i)
	}
	return out
}

// ArchiveConversation is compaction.ArchiveConversation: the conversation
// an archive files messages under, named by the first archive reference a
// compaction left in them, else by the digest of the messages up to their
// first anchor (share.AnchorIndex); ok is false when they have none.
func ArchiveConversation(messages []*schema.Message) (conv string, ok bool) {
	var head []*schema.Message
	if a := share.AnchorIndex(messages); a >= 0 {
		head = messages[:a+1]
	}
	return archive.ConversationOf(messages, head)
}

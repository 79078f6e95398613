package bench

import (
	"context"
	"fmt"
	"math"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// The recall model of the bill (SimConfig.Archive): a forgotten fact whose
// tool result a compaction archived is brought back by calling the recall
// tool with the reference the conversation as sent names, instead of a
// search and a read. One call returns the whole archived entry (every
// message that compaction removed, rendered as compaction.NewRecallTool
// renders them, without its page cap): the call is priced as a tool result
// of the archived size. When the reference of the entry holding the fact
// is no longer in the request (a later compaction summarized the pointer
// away), the agent follows the chain: each recall of an entry that names
// another entry's reference is one more call. A fact that no reachable
// entry holds costs what the forgetting rule says.
//
// BillConfig.RecallSearch prices the other end: each call passes the
// tool's search argument, so it returns only the messages holding what the
// agent needs (the next entry's reference, or the fact's tool call id, which
// matches the call and its result): the least a recall can return.

// recaller prices recalls through one run's archive.
type recaller struct {
	entries []archived
	tool    tool.InvokableTool
	search  bool // BillConfig.RecallSearch
	// results caches the tool's output per arguments.
	results map[string]string
}

// recallerFor returns the recaller of res's archive when cfg prices
// forgetting, else nil. The recall tool over an archive cannot fail to be
// made: a failure is a defect of the simulation and panics.
func recallerFor(res *SimResult, cfg BillConfig) *recaller {
	if cfg.Rule == nil {
		return nil
	}
	r, err := newRecaller(res.archive, cfg.RecallSearch)
	if err != nil {
		panic(fmt.Sprintf("bench: the recall tool over the run's archive: %v", err))
	}
	return r
}

// count adds what a recall cost to b.
func (b *Bill) count(rec Recovery) {
	if rec.Calls > 0 {
		b.Forgotten++
		b.ExtraCalls += rec.Calls
	}
	if rec.Archived {
		b.Recalled++
		b.RecallCalls += rec.Calls
		b.RecallTokens += rec.ResultTokens
	}
}

// newRecaller returns the recaller of a's entries, or nil when a is nil or
// empty.
func newRecaller(a *simArchive, search bool) (*recaller, error) {
	if a == nil {
		return nil, nil
	}
	entries := a.snapshot()
	if len(entries) == 0 {
		return nil, nil
	}
	t, err := compaction.NewRecallTool(a, compaction.WithRecallMaxChars(math.MaxInt32))
	if err != nil {
		return nil, err
	}
	return &recaller{entries: entries, tool: t, search: search, results: map[string]string{}}, nil
}

// arguments are the recall call's arguments for entry ref, looking for
// search when the recaller searches.
func (r *recaller) arguments(ref, search string) string {
	if !r.search {
		return fmt.Sprintf(`{"reference": %q}`, ref)
	}
	return fmt.Sprintf(`{"reference": %q, "search": %q}`, ref, search)
}

// result is what the recall tool returns for args.
func (r *recaller) result(args string) (string, error) {
	if out, ok := r.results[args]; ok {
		return out, nil
	}
	out, err := r.tool.InvokableRun(context.Background(), args)
	if err != nil {
		return "", err
	}
	r.results[args] = out
	return out, nil
}

// path returns the references to recall, in order, to reach an entry
// holding rc's tool result (matched by content), starting from those the
// request sent names: the shortest chain, nil when none reaches one.
func (r *recaller) path(rc Recall, sent []*schema.Message) []string {
	holds := func(e archived) bool {
		for _, m := range e.messages {
			if m.Role == schema.Tool && m.Content == rc.Source.Content {
				return true
			}
		}
		return false
	}
	prev := make([]int, len(r.entries)) // index of the entry read before, -1 at a start, -2 unseen
	var queue []int
	for i, e := range r.entries {
		prev[i] = -2
		if mentions(sent, e.ref) {
			prev[i] = -1
			queue = append(queue, i)
		}
	}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		if holds(r.entries[i]) {
			var refs []string
			for k := i; k >= 0; k = prev[k] {
				refs = append([]string{r.entries[k].ref}, refs...)
			}
			return refs
		}
		for j, e := range r.entries {
			if prev[j] == -2 && mentions(r.entries[i].messages, e.ref) {
				prev[j] = i
				queue = append(queue, j)
			}
		}
	}
	return nil
}

// recover prices rc as recall calls at the request sent; ok is false when
// no entry the request can reach holds the fact.
func (r *recaller) recover(rc Recall, sent []*schema.Message, tools []*schema.ToolInfo, output func(*schema.Message) int) (Recovery, bool, error) {
	refs := r.path(rc, sent)
	if len(refs) == 0 {
		return Recovery{}, false, nil
	}
	rec := Recovery{Recall: rc, Archived: true}
	prefix := sent
	for k, ref := range refs {
		search := rc.Source.ToolCallID
		if k+1 < len(refs) {
			search = refs[k+1]
		}
		args := r.arguments(ref, search)
		text, err := r.result(args)
		if err != nil {
			return Recovery{}, false, err
		}
		call := schema.ToolCall{ID: fmt.Sprintf("recall_%d_archive_%d", rc.Step, k), Type: "function",
			Function: schema.FunctionCall{Name: compaction.RecallToolName, Arguments: args}}
		a := schema.AssistantMessage("", []schema.ToolCall{call})
		t := schema.ToolMessage(text, call.ID, schema.WithToolName(compaction.RecallToolName))
		prefix = append(prefix[:len(prefix):len(prefix)], a, t)
		rec.Extra = append(rec.Extra, Request{Step: rc.Step, Tools: tools, Messages: prefix, Output: output(a)})
		rec.ResultTokens += output(t)
	}
	rec.Calls = len(rec.Extra)
	return rec, true, nil
}

// instead returns the recall calls that bring back the fact rec's rule
// priced, at req, when an entry req can reach holds it; otherwise rec. A
// nil recaller (no archive) returns rec. The archive is the run's own and
// its references are those it issued, so the recall tool cannot fail on
// them: a failure is a defect of the simulation and panics.
func (r *recaller) instead(rec Recovery, req Request, output func(*schema.Message) int) Recovery {
	if r == nil {
		return rec
	}
	got, ok, err := r.recover(rec.Recall, req.Messages, req.Tools, output)
	if err != nil {
		panic(fmt.Sprintf("bench: recall at step %d: %v", rec.Recall.Step, err))
	}
	if !ok {
		return rec
	}
	return got
}

// Package shape reads a conversation's structure: the leading system block,
// the earlier user turns, the current task's agent steps, and the tool
// call/result pairs that tie messages together and the faults that break
// them. Its results are indices into the caller's slice; it never changes a
// message.
//
// It uses internal/message for the roles and markers it reads, and no other
// package of hooks/compaction; the planner, the sliding window, the pruner
// and the hook's pairing guard call it. This file is the planner's door:
// regions, turns, steps and the pairing of candidate groups.
package shape

import (
	"slices"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/message"
)

// Regions holds the landmarks of a conversation (reference A.2).
type Regions struct {
	SystemEnd int // end of the leading block of unmarked system messages
	Task      int // index of the last real user message, -1 when there is none
}

// RegionsOf finds the landmarks of messages.
func RegionsOf(messages []*schema.Message) Regions {
	r := Regions{SystemEnd: len(messages), Task: -1}
	for i, m := range messages {
		if m == nil || m.Role != schema.System || message.HasKey(m) {
			r.SystemEnd = i
			break
		}
	}
	for i := len(messages) - 1; i >= r.SystemEnd; i-- {
		if message.IsRealUser(messages[i]) {
			r.Task = i
			break
		}
	}
	return r
}

// HistoryEnd is where the history region stops: the task anchor, or the end
// of the system block when there is no anchor (then there is no history).
func (r Regions) HistoryEnd() int {
	if r.Task < 0 {
		return r.SystemEnd
	}
	return r.Task
}

// TaskStart is where agent steps are searched from.
func (r Regions) TaskStart() int {
	if r.Task < 0 {
		return r.SystemEnd
	}
	return r.Task + 1
}

// Seq returns the identity sequence 0..n-1. Groups are windows of it, so
// cutting a conversation into groups costs no allocation per group.
func Seq(n int) []int {
	seq := make([]int, n)
	for i := range seq {
		seq[i] = i
	}
	return seq
}

// historicalTurns splits the history into turns: each real user message
// opens one that runs to the next real user message. Messages before the
// first real user message belong to no turn. Groups are windows of seq, the
// identity sequence, so cutting costs no allocation per group.
func historicalTurns(messages []*schema.Message, r Regions, seq []int) [][]int {
	var out [][]int
	start := -1
	for i := r.SystemEnd; i < r.HistoryEnd(); i++ {
		if message.IsRealUser(messages[i]) {
			if start >= 0 {
				out = append(out, seq[start:i])
			}
			start = i
		}
	}
	if start >= 0 {
		out = append(out, seq[start:r.HistoryEnd()])
	}
	return out
}

// TurnUnits splits the history into turns (each real user message opens one
// that runs to the next; messages before the first belong to no turn) and
// cuts each turn into units; see turnUnits.
func TurnUnits(messages []*schema.Message, r Regions, seq []int) [][]int {
	return turnUnits(messages, historicalTurns(messages, r, seq))
}

// turnUnits cuts each turn at its step boundaries: the request with its
// first step, then each later step (an assistant message with what follows
// it up to the next assistant message). Taking units oldest first takes
// whole turns while whole turns are needed, and only the older part of the
// turn that tips the balance, so recent work of an earlier turn stays
// verbatim instead of being summarized for a few tokens' sake. A turn's
// request is never separated from its first reply.
func turnUnits(messages []*schema.Message, turns [][]int) [][]int {
	var out [][]int
	for _, t := range turns {
		start, firstStep := 0, true
		for k, i := range t {
			m := messages[i]
			if k == 0 || m == nil || m.Role != schema.Assistant {
				continue
			}
			if firstStep {
				firstStep = false
				continue
			}
			out = append(out, t[start:k])
			start = k
		}
		out = append(out, t[start:])
	}
	return out
}

// Stranded returns the agent steps that follow this compactor's summaries
// before the history's first real user message, each summary with the steps
// after it as one group. The steps belong to no turn: a round that
// summarized the request and first steps of the oldest turn left its later
// steps there, after the summary, and without this they could never be
// summarized again. They go with the summary that holds the rest of their
// turn, so one round folds them into it; a round of a step or two alone cost
// more than it freed. A group never reaches past the next summary, whose new
// summary would otherwise stand before it while holding later work. Steps
// before any summary are left alone, as the reference leaves them (case F6).
func Stranded(messages []*schema.Message, r Regions, seq []int) [][]int {
	end := r.HistoryEnd()
	var sums []int
	for i := r.SystemEnd; i < end; i++ {
		if message.IsRealUser(messages[i]) {
			end = i
			break
		}
		if message.Is(messages[i], message.StrategySummarization) {
			sums = append(sums, i)
		}
	}
	var out [][]int
	for k, sum := range sums {
		stop := end
		if k+1 < len(sums) {
			stop = sums[k+1]
		}
		group := []int{sum}
		for _, st := range Steps(messages, sum+1, stop, seq) {
			group = append(group, st...)
		}
		if len(group) > 1 {
			out = append(out, group)
		}
	}
	return out
}

// Steps splits messages[from:to] into agent steps: an assistant message
// plus the tool results right after it. Anything else (summaries, notes,
// system messages, orphan results) belongs to no step. Steps are windows of
// seq, the identity sequence (Seq).
func Steps(messages []*schema.Message, from, to int, seq []int) [][]int {
	var out [][]int
	for i := from; i < to; {
		m := messages[i]
		if m == nil || m.Role != schema.Assistant {
			i++
			continue
		}
		start := i
		i++
		for i < to && message.IsToolResult(messages[i]) {
			i++
		}
		out = append(out, seq[start:i])
	}
	return out
}

// SummariesIn lists the summarization compactor's summaries in [from, to).
func SummariesIn(messages []*schema.Message, from, to int) []int {
	var out []int
	for i := from; i < to; i++ {
		if message.Is(messages[i], message.StrategySummarization) {
			out = append(out, i)
		}
	}
	return out
}

// KeepPairs makes candidate groups safe to summarize: no tool call may be
// replaced while one of its results stays, and no result while its call
// stays. The reference grouping already guarantees this for ordinary agent
// conversations; this pass covers the rest (a system message or a note
// between a call and its results, a call whose results sit across a turn
// boundary). A result that belongs to no group joins its call's group;
// candidates linked to each other merge into one, placed where the older one
// was; a candidate linked to a message that must stay (one in others, or a
// call outside every group) is dropped. Pairs are matched by call id, each
// result to the latest earlier call with its id.
func KeepPairs(messages []*schema.Message, candidates, others [][]int) [][]int {
	l := newLinks(len(messages), candidates, others)
	callAt := map[string]int{}
	for i, m := range messages {
		switch {
		case m == nil:
		case m.Role == schema.Assistant:
			for _, tc := range m.ToolCalls {
				if tc.ID != "" {
					callAt[tc.ID] = i
				}
			}
		case m.Role == schema.Tool && m.ToolCallID != "":
			if j, ok := callAt[m.ToolCallID]; ok {
				l.pair(j, i)
			}
		}
	}
	if !l.changed {
		return candidates
	}
	return l.groups(candidates)
}

// Owners of a message in links.owner besides a candidate's index.
const (
	free      = -1 // in no group
	protected = -2 // in one of the groups that must stay
)

// links is what KeepPairs learns of the candidates while it pairs calls
// with results: which candidate owns each message, which candidates merge
// (a union-find over parent), which must be dropped (pinned) and which free
// results join which candidate.
type links struct {
	owner   []int
	parent  []int
	pinned  []bool
	joined  [][]int // free results that follow their call
	changed bool    // whether any candidate needs joining, merging or pinning
}

func newLinks(n int, candidates, others [][]int) *links {
	l := &links{owner: make([]int, n), parent: make([]int, len(candidates)),
		pinned: make([]bool, len(candidates)), joined: make([][]int, len(candidates))}
	for i := range l.owner {
		l.owner[i] = free
	}
	for _, g := range others {
		for _, i := range g {
			l.owner[i] = protected
		}
	}
	for n, g := range candidates {
		for _, i := range g {
			l.owner[i] = n
		}
	}
	for n := range l.parent {
		l.parent[n] = n
	}
	return l
}

func (l *links) find(n int) int {
	for l.parent[n] != n {
		l.parent[n] = l.parent[l.parent[n]]
		n = l.parent[n]
	}
	return n
}

// pair records that the result at res answers the call at call.
func (l *links) pair(call, res int) {
	r, c := l.owner[res], l.owner[call]
	l.changed = l.changed || (r != c && (r >= 0 || c >= 0))
	switch {
	case r == c:
	case c >= 0 && r == free:
		l.joined[c] = append(l.joined[c], res)
	case c >= 0 && r >= 0:
		a, b := l.find(c), l.find(r)
		l.parent[max(a, b)] = min(a, b)
	case r >= 0:
		l.pinned[r] = true
	case c >= 0 && r == protected:
		l.pinned[c] = true
	}
}

// groups returns the candidates with the links applied: merged groups in
// the place of their oldest member, joined results added, pinned ones gone.
func (l *links) groups(candidates [][]int) [][]int {
	for n := range candidates {
		if l.pinned[n] {
			l.pinned[l.find(n)] = true
		}
	}
	out := make([][]int, 0, len(candidates))
	slot := make([]int, len(candidates)) // position of a root's group in out
	for n, g := range candidates {
		root := l.find(n)
		if l.pinned[root] {
			continue
		}
		if root == n {
			slot[n] = len(out)
			out = append(out, nil)
		}
		out[slot[root]] = append(out[slot[root]], g...)
		out[slot[root]] = append(out[slot[root]], l.joined[n]...)
	}
	for _, g := range out {
		slices.Sort(g)
	}
	return out
}

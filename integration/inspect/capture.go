package inspect

import (
	"fmt"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/internal/redact"
)

// maxMessageBytes bounds the captured text of one message; the rest is cut
// with a note, so one huge tool result cannot take a conversation's whole
// MaxContentBytes.
const maxMessageBytes = 32 << 10

// roundContent is what one round replaced and the summary it wrote,
// redacted (redact.Text).
type roundContent struct {
	// Replaced are the texts of the replaced messages, in order.
	Replaced []string
	// Summary is the summary's text split around the identifier block the
	// ledger appended (compaction.SplitLedger).
	SummaryBefore, SummaryLedger, SummaryAfter string
	// SummaryNote says why the summary's text is not shown, when it is not.
	SummaryNote string
}

// item is a position of the conversation while its rounds are replayed:
// a message of the conversation before the compaction, or the summary a
// round wrote.
type item struct {
	msg   *schema.Message
	round int // -1 for a message of before
}

// fallbackContent is what the model-free fallback took out of the
// conversation and what it put in, redacted (redact.Text).
type fallbackContent struct {
	// Removed are the texts of the messages the fallback dropped or
	// replaced (a pruned tool result's original), in order.
	Removed []string
	// Added are the texts of the messages it put in their place (pruned
	// tool results, the sliding window's note), in order.
	Added []string
	// Note says why the texts are not shown, when they are not.
	Note string
}

// captureContent replays the compaction's rounds on before to learn what
// each replaced, then reads each summary still present in after. A summary
// replaced by a later round of the same compaction is no longer in after:
// its text is not known, and the page says so. When the fallback ran, it
// also keeps what the fallback removed and added (captureFallback), within
// limit bytes.
func (rec *record) captureContent(before, after []*schema.Message, rounds []compaction.Round, limit int) {
	items, contents, replayed := replayRounds(before, rounds)
	if rec.Fallback != "" {
		rec.captureFallback(items, replayed, after, limit)
	}
	if replayed && rec.Fallback == "" && len(items) == len(after) {
		readSummaries(items, contents, after)
	}
	rec.keepContents(contents)
}

// replayRounds applies the rounds' replacements to before, in order, and
// returns the conversation they leave (each message with the round that
// wrote it, -1 for one of before), what each round replaced (nil for a
// round that failed or replaced nothing), and whether every round could be
// replayed: a round whose indices do not fit stops the replay.
func replayRounds(before []*schema.Message, rounds []compaction.Round) (items []item, contents []*roundContent, replayed bool) {
	items = make([]item, len(before))
	for i, m := range before {
		items[i] = item{msg: m, round: -1}
	}
	contents = make([]*roundContent, len(rounds))
	for k, rd := range rounds {
		if rd.Err != nil || len(rd.Indices) == 0 {
			continue
		}
		if !validIndices(rd.Indices, len(items)) {
			return items, contents, false
		}
		rc := &roundContent{}
		for _, i := range rd.Indices {
			it := items[i]
			if it.round >= 0 {
				rc.Replaced = append(rc.Replaced, fmt.Sprintf("(the summary written by round %d)", it.round+1))
				contents[it.round].SummaryNote = fmt.Sprintf("Replaced by round %d of this compaction before the model call; its text was not kept.", k+1)
				continue
			}
			rc.Replaced = append(rc.Replaced, messageText(it.msg))
		}
		contents[k] = rc
		items = replace(items, rd.Indices, k)
	}
	return items, contents, true
}

// readSummaries reads, for each round whose summary the replayed
// conversation (items) still holds, the summary's text at the same place
// in after, or notes why it cannot.
func readSummaries(items []item, contents []*roundContent, after []*schema.Message) {
	for p, it := range items {
		if it.round < 0 || contents[it.round].SummaryNote != "" {
			continue
		}
		rc := contents[it.round]
		if _, ok := compaction.MarkerOf(after[p]); !ok {
			rc.SummaryNote = "The message at the summary's place is not a summary: the replay of the rounds does not match the result."
			continue
		}
		rc.SummaryBefore, rc.SummaryLedger, rc.SummaryAfter = compaction.SplitLedger(clip(redact.Text(after[p].Content), maxMessageBytes))
	}
}

// keepContents attaches each round's content to its round, saying why a
// summary's text is missing when it is, and adds the texts' sizes to the
// record's.
func (rec *record) keepContents(contents []*roundContent) {
	for k, rc := range contents {
		if rc == nil {
			continue
		}
		switch {
		case rc.SummaryNote != "" || rc.SummaryBefore != "":
		case rec.Fallback != "":
			rc.SummaryNote = "The model-free fallback changed the conversation after this round; the summary's text was not kept."
		default:
			rc.SummaryNote = "The rounds of this compaction could not be matched with its result; the summary's text was not kept."
		}
		rec.Rounds[k].Content = rc
		rec.contentBytes += len(rc.SummaryBefore) + len(rc.SummaryLedger) + len(rc.SummaryAfter)
		for _, m := range rc.Replaced {
			rec.contentBytes += len(m)
		}
	}
}

// captureFallback keeps what the fallback changed: the messages of the
// conversation as the replayed rounds left it (items) that are not in
// after, and the messages of after that were in neither, summaries of
// the rounds aside. Messages are matched by content (compaction.MessageDigest),
// as compaction.ReplacedMessages counts them: a compaction applied from a
// Store holds decoded copies of the messages it kept, which are not the
// ones it replaced. Past limit bytes nothing is kept: the whole record's
// text would be over Config.MaxContentBytes and dropped anyway.
func (rec *record) captureFallback(items []item, replayed bool, after []*schema.Message, limit int) {
	if !replayed {
		rec.FallbackContent = &fallbackContent{Note: "The rounds of this compaction could not be replayed; what the fallback removed was not kept."}
		return
	}
	inAfter := make(map[compaction.Digest]int, len(after))
	for _, m := range after {
		inAfter[compaction.MessageDigest(m)]++
	}
	known := make(map[compaction.Digest]int, len(items))
	fc := &fallbackContent{}
	n := 0
	keep := func(list *[]string, m *schema.Message) bool {
		t := messageText(m)
		if n += len(t); n > limit {
			return false
		}
		*list = append(*list, t)
		return true
	}
	for _, it := range items {
		if it.round >= 0 {
			continue
		}
		d := compaction.MessageDigest(it.msg)
		known[d]++
		if inAfter[d] > 0 {
			inAfter[d]--
			continue
		}
		if !keep(&fc.Removed, it.msg) {
			rec.FallbackContent = &fallbackContent{Note: fallbackTooLarge}
			return
		}
	}
	for _, m := range after {
		if d := compaction.MessageDigest(m); known[d] > 0 {
			known[d]--
			continue
		}
		if mk, ok := compaction.MarkerOf(m); ok && mk.Strategy == compaction.StrategySummarization {
			continue
		}
		if !keep(&fc.Added, m) {
			rec.FallbackContent = &fallbackContent{Note: fallbackTooLarge}
			return
		}
	}
	rec.FallbackContent, rec.contentBytes = fc, rec.contentBytes+n
}

// fallbackTooLarge is the note of a fallback whose text would not fit
// Config.MaxContentBytes.
const fallbackTooLarge = "What the fallback removed is larger than the recorder's content bound (Config.MaxContentBytes); its text was not kept."

// messageText is a message as the summarizer's counters render it
// (attachments as placeholders, never their data), redacted and bounded.
func messageText(m *schema.Message) string {
	return clip(redact.Text(compaction.RenderMessage(m, compaction.RenderOptions{})), maxMessageBytes)
}

// validIndices reports whether idx is strictly increasing within [0, n).
func validIndices(idx []int, n int) bool {
	for i, v := range idx {
		if v < 0 || v >= n || (i > 0 && v <= idx[i-1]) {
			return false
		}
	}
	return true
}

// replace removes the items at idx and puts round k's summary where the
// first of them was, as a summarizing compactor does.
func replace(items []item, idx []int, k int) []item {
	out := make([]item, 0, len(items)-len(idx)+1)
	j := 0
	for i, it := range items {
		if j < len(idx) && idx[j] == i {
			if j == 0 {
				out = append(out, item{round: k})
			}
			j++
			continue
		}
		out = append(out, it)
	}
	return out
}

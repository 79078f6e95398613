package ledger

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/count"
	"github.com/einocompact/einocompact/hooks/compaction/internal/render"
	summarytext "github.com/einocompact/einocompact/hooks/compaction/internal/summary"
	"github.com/einocompact/einocompact/internal/spotlight"
)

// fit returns how many of lost, taken in order, the block can list within
// MaxTokens, and that block. The block grows with every entry, so a binary
// search over the count needs O(log n) renderings and counts, where adding
// one entry at a time needed n of each, quadratic in the block's size.
func (l Ledger) fit(ctx context.Context, lost []Entry, counter count.Counter) (int, string, error) {
	// Each entry's line is marked once, however many probes list it.
	// Each entry's line is built only when a probe needs it, which the
	// default counter's probes never do (see below).
	refs, used := tagLedgerRefs(lost)
	legend := func(k int) string { return summarytext.Legend(refs[:used[k]]) }
	var lines []string
	lineUpTo := func(k int) {
		if lines == nil {
			lines = make([]string, 0, len(lost))
		}
		for len(lines) < k {
			lines = append(lines, ledgerLine(lost[len(lines)]))
		}
	}
	size := func(k int) (int, error) {
		lineUpTo(k)
		n, err := counter.Count(ctx, []*schema.Message{schema.UserMessage(ledgerBlock(lines[:k], len(lost)-k) + legend(k))}, nil)
		if err != nil {
			return 0, fmt.Errorf("compaction: measuring the identifier ledger: %w", err)
		}
		return n, nil
	}
	if ac, ok := counter.(*count.Approx); ok {
		// The default counter measures a message by its code points, which
		// add up over concatenation: a probe's block is measured from the
		// lines' lengths, without building it, and a line is built only to
		// be measured when marking or escaping changes its value.
		before := render.RuneLen("[" + string(schema.User) + "] " + summarytext.LedgerHeading)
		runes := []int{0} // runes[k]: the first k lines, each with its "\n"
		size = func(k int) (int, error) {
			for len(runes) <= k {
				i := len(runes) - 1
				runes = append(runes, runes[i]+1+ledgerLineRunes(lost[i]))
			}
			units := before + runes[k] + render.RuneLen(legend(k))
			if d := len(lost) - k; d > 0 {
				units += droppedNoteRunes(d)
			}
			return ac.Tokens(count.Cost{Units: units}, 1), nil
		}
	}
	lo, hi := 0, len(lost) // lo fits (0 means no block); find the largest k that fits
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		n, err := size(mid)
		if err != nil {
			return 0, "", err
		}
		if n <= l.CapFor(0) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo == 0 {
		return 0, "", nil
	}
	if len(lines) < lo {
		// The probes measured the lines without building them: the block
		// is written entry by entry, with no string per line.
		return lo, ledgerBlockOf(lost[:lo], len(lost)-lo) + legend(lo), nil
	}
	return lo, ledgerBlock(lines[:lo], len(lost)-lo) + legend(lo), nil
}

// ledgerLine is an entry's line in the block, without its line break. Each
// value is copied by code, not written by the summarizer, often from a tool
// result, into a user message, so it is
// marked as data (spotlight.Mark): an identifier without white space stays
// byte for byte, an error line or any other free text is delimited and
// datamarked, so a tool cannot pass an instruction to the agent through it.
// The summary message says what the marking means (summarytext.New). Summary
// tags are escaped before marking, as summarytext.New would escape them after:
// once ˆ stands for the blanks in "</ conversation_summary>", no expression
// for the tag's spellings sees it.
func ledgerLine(e Entry) string {
	return "- " + spotlight.Mark(summarytext.EscapeTags(e.value)) + summarytext.Tag(e.tag)
}

// ledgerBlock is the block listing lines (from ledgerLine).
func ledgerBlock(lines []string, dropped int) string {
	n := len(summarytext.LedgerHeading) + 48
	for _, l := range lines {
		n += len(l) + 1
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(summarytext.LedgerHeading)
	for _, l := range lines {
		b.WriteString("\n")
		b.WriteString(l)
	}
	if dropped > 0 {
		b.WriteString(droppedNote(dropped))
	}
	return b.String()
}

// ledgerBlockOf is ledgerBlock of the lines of entries (ledgerLine), written
// without building each line: "- " and the marked value go straight into
// the block.
func ledgerBlockOf(entries []Entry, dropped int) string {
	n := len(summarytext.LedgerHeading) + 48
	for _, e := range entries {
		n += len(e.value) + 3
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(summarytext.LedgerHeading)
	for _, e := range entries {
		b.WriteString("\n- ")
		spotlight.WriteMark(&b, summarytext.EscapeTags(e.value))
		b.WriteString(summarytext.Tag(e.tag))
	}
	if dropped > 0 {
		b.WriteString(droppedNote(dropped))
	}
	return b.String()
}

// droppedNote ends a block that left dropped entries out.
func droppedNote(dropped int) string {
	return droppedBefore + strconv.Itoa(dropped) + droppedAfter
}

// The text of droppedNote around the count.
const (
	droppedBefore = "\n("
	droppedAfter  = " more dropped to fit the cap)"
)

// droppedNoteRunes is render.RuneLen(droppedNote(dropped)), without
// building the note (fit measures one per probe): it is ASCII, one code
// point a byte.
func droppedNoteRunes(dropped int) int {
	var digits [20]byte
	return len(droppedBefore) + len(strconv.AppendInt(digits[:0], int64(dropped), 10)) + len(droppedAfter)
}

// ledgerLineRunes is render.RuneLen(ledgerLine(e)), without building the
// line when neither escaping nor marking changes the value.
func ledgerLineRunes(e Entry) int {
	if !spotlight.NeedsMark(e.value) && summarytext.EscapeTags(e.value) == e.value {
		return 2 + render.RuneLen(e.value) + len(summarytext.Tag(e.tag))
	}
	return render.RuneLen(ledgerLine(e))
}

package compaction

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/identifiers"
	"github.com/einocompact/einocompact/hooks/compaction/internal/archive"
	"github.com/einocompact/einocompact/hooks/compaction/internal/render"
	summarytext "github.com/einocompact/einocompact/hooks/compaction/internal/summary"
	"github.com/einocompact/einocompact/hooks/compaction/internal/transcript"
	"github.com/einocompact/einocompact/internal/spotlight"
)

// LedgerConfig configures the identifier ledger of a SummarizationCompactor.
//
// Summaries lose exact identifiers: a path, an id or an error string written
// from memory is not the one the agent needs. Before a round the ledger
// extracts identifiers from the messages being replaced, without any model;
// after the summary comes back it appends those the summary lost, under a
// "## Identifiers (verbatim)" heading, within MaxTokens: an identifier
// without white space byte for byte, free text such as an error line marked
// as data («Error:ˆdiskˆfull», and the summary opens with a line saying what
// the marks mean), since the block copies tool output into a user message.
// The full list is kept in the summary's marker under "identifiers", so a
// later round that folds this summary into a new one carries them forward
// even if the cap cut them from the text.
type LedgerConfig struct {
	// Disabled turns the ledger off. Default false: the ledger is on.
	Disabled bool
	// Extractors find identifiers. Default identifiers.DefaultExtractors():
	// paths, URLs, UUIDs, hex hashes of 7+ characters, quoted error strings
	// and error lines, and the values of tool arguments named like path,
	// file, url, id or query. Tool-call ids are left out whatever the
	// extractors: the messages are read without them, since once their calls
	// are summarized they name nothing.
	Extractors []identifiers.Extractor
	// MaxTokens caps the size of the appended block, as measured by the
	// compaction's counter. Must be >= 0. Default 0: a quarter of the
	// compaction's target, at least 256 tokens and at most 8 per remembered
	// identifier (1,600 with the default MaxRemembered), so the block grows
	// with the room the conversation is given (docs/fidelity.md); five
	// quarters of that in a deep compaction (Report.Deep), which replaces
	// more.
	MaxTokens int
	// MaxRemembered caps how many identifiers a summary's marker records.
	// Default 200.
	MaxRemembered int
}

// IdentifierStats reports what the ledger found and did in one round.
type IdentifierStats struct {
	Found    int // identifiers in the replaced messages (and folded summaries' ledgers)
	Survived int // of those, found in the summary as written, verbatim or marked as data
	Appended int // lost ones appended verbatim by the ledger
	Dropped  int // lost ones left out to respect MaxTokens
}

// SurvivalRate is Survived/Found before repair; 1 when nothing was found.
func (s IdentifierStats) SurvivalRate() float64 {
	if s.Found == 0 {
		return 1
	}
	return float64(s.Survived) / float64(s.Found)
}

type ledger struct {
	off        bool
	extractors []identifiers.Extractor
	maxTokens  int // 0: sized from the target (capFor)
	remember   int
}

func newLedger(cfg *LedgerConfig) (ledger, error) {
	l := ledger{extractors: identifiers.DefaultExtractors(), remember: 200}
	if cfg == nil {
		return l, nil
	}
	if cfg.MaxTokens < 0 {
		return l, fmt.Errorf("compaction: LedgerConfig.MaxTokens must be at least 0, got %d", cfg.MaxTokens)
	}
	if cfg.MaxRemembered < 0 {
		return l, fmt.Errorf("compaction: LedgerConfig.MaxRemembered must be at least 0, got %d", cfg.MaxRemembered)
	}
	l.off = cfg.Disabled
	if cfg.Extractors != nil {
		l.extractors = slices.Clone(cfg.Extractors)
	}
	if cfg.MaxTokens > 0 {
		l.maxTokens = cfg.MaxTokens
	}
	if cfg.MaxRemembered > 0 {
		l.remember = cfg.MaxRemembered
	}
	return l, nil
}

// The default cap of the ledger's block (LedgerConfig.MaxTokens 0). A fixed
// 256 tokens kept 59 % of the fidelity corpus's identifiers in a 16,000-token
// window; what a summary must carry grows with the conversation it stands
// for, so the cap follows the target. Beyond about 8 tokens per identifier
// the marker remembers, a larger block would list values that the next fold
// forgets anyway.
const (
	ledgerCapShare   = 4 // a quarter of the target
	ledgerCapMin     = 256
	ledgerCapPerItem = 8
)

// capFor is the block's cap in a compaction to target tokens.
func (l ledger) capFor(target int) int {
	if l.maxTokens > 0 {
		return l.maxTokens
	}
	return max(min(target/ledgerCapShare, ledgerCapPerItem*l.remember), ledgerCapMin)
}

// ledgerEntry is one identifier with how often and how recently it was used.
type ledgerEntry struct {
	value string
	uses  int    // how many replaced messages mention it
	last  int    // position of the newest message that mentions it
	ref   string // archive reference of the span that held its newest mention, "" for the span being replaced (ledger_refs.go)
	tag   int    // its reference's number in the block's legend, 0 for none
}

// arenaShare sizes collect's arena: the distinct values found take about
// this fraction of the rendered text (a ninth to a twelfth in the
// benchmark's conversations); the arena grows if they take more.
const arenaShare = 8

// identifiersPerBytes sizes collect's table: about one distinct identifier
// is expected per this many bytes of rendered messages.
const identifiersPerBytes = 256

// collect extracts identifiers from the planned messages, oldest first,
// plus those remembered by summaries among them.
func (l ledger) collect(messages []*schema.Message, indices []int) []ledgerEntry {
	if l.off {
		return nil
	}
	// Each message is rendered into one reused buffer and read in place
	// (unsafe.String): the text of the replaced messages, megabytes in a
	// long conversation, was a fresh allocation per round, the largest one
	// of a compaction. What must outlive the message is only each distinct
	// value found, copied into the arena when first noted: a few percent of
	// the text. Nothing else keeps a substring of the buffer: matches are
	// read before the next message overwrites it.
	hint := transcript.SizeHint(messages, indices)
	// The buffer starts at about the largest message's size: grown from
	// empty by doubling, it allocated about twice that on the way, as much
	// as a tenth of what a small compaction allocates.
	largest := 0
	for _, i := range indices {
		largest = max(largest, transcript.MessageSizeHint(messages[i]))
	}
	var scratch bytes.Buffer
	scratch.Grow(largest)
	var arena strings.Builder
	arena.Grow(hint / arenaShare)
	// Sized for about one distinct identifier per identifiersPerBytes bytes
	// of text (one per 200 to 300 in the benchmark's conversations): growing
	// the map from a few entries to thousands cost as much as filling it.
	byValue := make(map[string]int, max(len(indices), hint/identifiersPerBytes))
	entries := make([]ledgerEntry, 0, max(len(indices), hint/identifiersPerBytes))
	// One scanner for all the messages: its buffers serve each in turn.
	scan := identifiers.NewScanner(l.extractors)
	// note counts v at pos; owned says whether v may be kept as it is
	// (false: it lies in scratch, and is copied to the arena if kept).
	note := func(v string, pos int, owned bool, ref string) {
		if i, ok := byValue[v]; ok {
			entries[i].uses++
			entries[i].last = pos
			entries[i].ref = ref
			return
		}
		if !owned {
			// A Builder only appends, so what it returned stays as it
			// was when it grows.
			start := arena.Len()
			arena.WriteString(v)
			v = arena.String()[start:]
		}
		byValue[v] = len(entries)
		entries = append(entries, ledgerEntry{value: v, uses: 1, last: pos, ref: ref})
	}
	for pos, i := range indices {
		m := messages[i]
		ref, _ := archive.RefOf(m) // "" without an archive
		if fields, ok := MarkerFields(m); ok {
			carried := summarytext.BlockRefs(m.Content)
			remembered := summarytext.Remembered(fields[summarytext.LedgerKey])
			for _, v := range remembered {
				note(v, pos, true, cmp.Or(carried[v], ref))
			}
			for _, v := range summarytext.BlockValues(m.Content) {
				if !slices.Contains(remembered, v) {
					note(v, pos, true, cmp.Or(carried[v], ref))
				}
			}
		}
		var text string
		owned := true
		if IsStrategy(m, StrategySummarization) {
			// The summary's wrapping tags are not the conversation's: the
			// closing tag would read as the path "/conversation_summary".
			// Marked tool text is read unmarked: the extractors split at
			// white space, which marking replaced ("ˆ/tmp/a.go:ˆno").
			text = spotlight.UnmarkAll(transcript.SummaryBody(m))
		} else {
			scratch.Reset()
			render.Message(&scratch, m, render.Options{Attachment: render.Describe})
			text = unsafe.String(unsafe.SliceData(scratch.Bytes()), scratch.Len())
			owned = false
		}
		for _, match := range scan.Scan(text) {
			note(match.Value, pos, owned, ref)
		}
	}
	return entries
}

// repair appends the identifiers the summary lost, most used and newest
// first, as far as MaxTokens allows, and returns the new text, the stats and
// the marker fields to record.
func (l ledger) repair(ctx context.Context, text string, entries []ledgerEntry, counter TokenCounter) (string, IdentifierStats, map[string]any, error) {
	stats := IdentifierStats{Found: len(entries)}
	if l.off || len(entries) == 0 {
		return text, stats, nil, nil
	}
	// All identifiers are checked together (spotlight.Kept, through
	// substrings.FoundIn): a search per identifier made this quadratic
	// (thousands of identifiers, a summary of kilobytes), and an automaton
	// over all of them cost more to build than the summary costs to read.
	// A value counts as kept written verbatim or in its datamarked form
	// (spotlight.Datamark), the way the extractive summarizer quotes tool
	// text; the CLI's report counts by the same rule.
	values := make([]string, len(entries))
	for i, e := range entries {
		values[i] = e.value
	}
	found := spotlight.Kept(text, values)
	survived := func(i int) bool { return found[i] }
	for i := range entries {
		if survived(i) {
			stats.Survived++
		}
	}
	// Sized exactly: most identifiers are lost (a summary quotes few), and
	// growing the list by doubling was a tenth of what compaction allocated.
	lost := make([]ledgerEntry, 0, len(entries)-stats.Survived)
	for i := range entries {
		if !survived(i) {
			lost = append(lost, entries[i])
		}
	}
	// Keep the most used, then the newest; drop the oldest and least used.
	// Ties keep their order: the position in lost breaks them, which gives
	// a stable sort's order with an unstable sort's speed.
	lost = sortLost(lost)
	kept, block, err := l.fit(ctx, lost, counter)
	if err != nil {
		return text, stats, nil, err
	}
	stats.Appended, stats.Dropped = kept, len(lost)-kept
	if kept > 0 {
		text += "\n\n" + block
	}
	// Copies: a value may be part of the text collect rendered all the
	// replaced messages into, which the summary must not keep alive. They
	// are copied into one string and sliced from it, one allocation where
	// a copy each was a third of a small compaction's allocations.
	keep := entries[max(len(entries)-l.remember, 0):]
	size := 0
	for _, e := range keep {
		size += len(e.value)
	}
	var copies strings.Builder
	copies.Grow(size)
	for _, e := range keep {
		copies.WriteString(e.value)
	}
	all := copies.String()
	remembered := make([]any, 0, len(keep))
	for _, e := range keep {
		remembered = append(remembered, all[:len(e.value)])
		all = all[len(e.value):]
	}
	return text, stats, map[string]any{summarytext.LedgerKey: remembered}, nil
}

// sortLost orders lost entries most used first, then newest first, ties in
// their order in lost: a stable sort's order with an unstable sort's speed.
// When the three fit in 21 bits each they are packed in one key, so the sort
// compares integers instead of calling a function per comparison, and lost
// is put in that order in place (a copy of it was as large as the keys and
// the list of values together). Otherwise a sorted copy is returned.
func sortLost(lost []ledgerEntry) []ledgerEntry {
	const bits, limit = 21, 1 << 21
	packable := len(lost) < limit
	for _, e := range lost {
		packable = packable && e.uses >= 0 && e.uses < limit && e.last >= 0 && e.last < limit
	}
	if packable {
		keys := make([]uint64, len(lost))
		for i, e := range lost {
			keys[i] = uint64(limit-1-e.uses)<<(2*bits) | uint64(limit-1-e.last)<<bits | uint64(i)
		}
		slices.Sort(keys)
		// Position i takes the entry at keys[i]'s index: the cycles of
		// that permutation are followed, each position written once,
		// and the keys' free top bit marks the positions done.
		const done = 1 << 63
		for i := range keys {
			if keys[i]&done != 0 {
				continue
			}
			first := lost[i]
			j := i
			for {
				from := int(keys[j] & (limit - 1))
				keys[j] |= done
				if from == i {
					lost[j] = first
					break
				}
				lost[j] = lost[from]
				j = from
			}
		}
		return lost
	}
	sorted := make([]ledgerEntry, len(lost))
	order := make([]int, len(lost))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		x, y := lost[a], lost[b]
		return cmp.Or(cmp.Compare(y.uses, x.uses), cmp.Compare(y.last, x.last), cmp.Compare(a, b))
	})
	for i, k := range order {
		sorted[i] = lost[k]
	}
	return sorted
}

// fit returns how many of lost, taken in order, the block can list within
// MaxTokens, and that block. The block grows with every entry, so a binary
// search over the count needs O(log n) renderings and counts, where adding
// one entry at a time needed n of each, quadratic in the block's size.
func (l ledger) fit(ctx context.Context, lost []ledgerEntry, counter TokenCounter) (int, string, error) {
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
	if ac, ok := counter.(*ApproximateTokenCounter); ok {
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
			return ac.Tokens(Cost{Units: units}, 1), nil
		}
	}
	lo, hi := 0, len(lost) // lo fits (0 means no block); find the largest k that fits
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		n, err := size(mid)
		if err != nil {
			return 0, "", err
		}
		if n <= l.capFor(0) {
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
func ledgerLine(e ledgerEntry) string {
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
func ledgerBlockOf(entries []ledgerEntry, dropped int) string {
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
func ledgerLineRunes(e ledgerEntry) int {
	if !spotlight.NeedsMark(e.value) && summarytext.EscapeTags(e.value) == e.value {
		return 2 + render.RuneLen(e.value) + len(summarytext.Tag(e.tag))
	}
	return render.RuneLen(ledgerLine(e))
}

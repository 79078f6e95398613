package inspect

import (
	"time"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// Outcomes of a triggered compaction, as the page names and draws them.
const (
	KindSynchronous = "synchronous" // compacted while the model call waited
	KindPrepared    = "prepared"    // applied a compaction computed in the background
	KindDeferred    = "deferred"    // went out uncompacted while one was being prepared
	KindFailed      = "failed"      // the compactor or its result failed
	KindDeclined    = "declined"    // the compactor found nothing to compact
	KindBackedOff   = "backed-off"  // not tried: a recent compaction of this conversation failed
	// KindHeld: not tried below the ceiling: the conversation's last
	// compaction bought less than two steps of room (Report.RoomHeld).
	KindHeld = "held"
	// KindFallback: the compaction (failed, declined or too small) left
	// the call estimated above the window less the hook's FallbackMargin,
	// so its model-free fallback compacted (Report.Fallback).
	KindFallback = "fallback"
	// KindUnprofitable: the compaction's result was not applied because it
	// would not pay for itself under HookConfig.Prices
	// (Report.Unprofitable).
	KindUnprofitable = "unprofitable"
)

// record is one triggered compaction. Once filed it is never modified.
type record struct {
	Call int // call.N of the model call it preceded
	// N is the compaction's number among the conversation's applied ones,
	// counting from 1 as the hook's log and the fx demo count them; 0 for
	// a triggered call that was not compacted (held, failed, ...).
	N    int
	Time time.Time
	Kind string
	// Step is the step it came before (Report.BeforeStep), numbered as
	// the hook's log and the fx demo number it.
	Step      int
	Estimated int
	Trigger   float64
	Target    int
	Overhead  int
	Overflow  bool

	MessagesBefore, MessagesAfter int
	TokensBefore, TokensAfter     int
	Saved                         int
	Duration, Stall               time.Duration
	Err                           string
	// Applied: the conversation was replaced (Report.Compacted), by the
	// compactor or by the fallback.
	Applied bool
	// Fallback names the model-free stages that ran (Report.Fallback).
	Fallback string
	// Unprofitable: not applied under HookConfig.Prices.
	Unprofitable bool
	// InvalidatedTokens is the cached prefix the applied compaction made
	// the provider drop, by the counter (Report.InvalidatedTokens).
	InvalidatedTokens int
	// Deep: the compaction was asked to keep the newest fifth of the
	// window verbatim and summarize everything older (Report.Deep).
	Deep bool
	// Shared: the compaction applied was written by a hook sharing the
	// same Store, maybe in another process, and taken from it
	// (Report.Shared).
	Shared bool
	// ArchiveRef is the reference under which HookConfig.Archive keeps
	// what the compaction removed (Report.ArchiveRef); "" without one.
	ArchiveRef string

	Rounds []round
	// FallbackContent is what the fallback removed and put in; nil unless
	// captured.
	FallbackContent *fallbackContent

	// ContentDropped: text was captured and later dropped to fit
	// Config.MaxContentBytes.
	ContentDropped bool
	contentBytes   int
}

// round is one summarizer round of a compaction.
type round struct {
	Tier                           string
	Replaced                       int
	TokensBefore, TokensAfter      int
	Latency                        time.Duration
	HasUsage                       bool
	PromptTokens, CompletionTokens int
	Err                            string
	Model                          string
	Attempts                       int
	InputTokens                    int
	Truncated                      int
	Identifiers                    compaction.IdentifierStats
	Shape                          string        // request shape (compaction.ShapeTranscript, ShapeCacheAligned)
	AlignedFallback                string        // why a cache-aligned round used the transcript; ""
	CachedTokens                   int           // prompt tokens the provider read from its cache
	Content                        *roundContent // nil unless captured
}

func kindOf(rep compaction.Report, err error) string {
	switch {
	case rep.Fallback != "":
		// Before the failure it follows: Err still holds its cause.
		return KindFallback
	case err != nil:
		return KindFailed
	case rep.Unprofitable:
		return KindUnprofitable
	case rep.Deferred:
		return KindDeferred
	case rep.BackedOff:
		return KindBackedOff
	case rep.RoomHeld:
		return KindHeld
	case rep.Compacted && rep.Prepared:
		return KindPrepared
	case rep.Compacted:
		return KindSynchronous
	}
	return KindDeclined
}

func newRecord(rep compaction.Report, hookErr error) *record {
	err := errorOf(rep, hookErr)
	rec := &record{Kind: kindOf(rep, err), Step: rep.BeforeStep(), Estimated: rep.Estimated, Trigger: rep.Trigger, Target: rep.Target,
		Overhead: rep.Overhead, Overflow: rep.Overflow, MessagesBefore: rep.MessagesBefore, MessagesAfter: rep.MessagesAfter,
		TokensBefore: rep.TokensBefore, TokensAfter: rep.TokensAfter, Saved: rep.Saved(), Duration: rep.Duration, Stall: rep.Stall,
		Err: errText(err), Applied: rep.Compacted, Fallback: clip(rep.Fallback, maxIDBytes), Unprofitable: rep.Unprofitable,
		InvalidatedTokens: rep.InvalidatedTokens, Deep: rep.Deep, Shared: rep.Shared,
		ArchiveRef: clip(rep.ArchiveRef, maxIDBytes)}
	for _, rd := range rep.Rounds {
		x := round{Tier: rd.Tier, Replaced: len(rd.Indices), TokensBefore: rd.TokensBefore, TokensAfter: rd.TokensAfter,
			Latency: rd.Latency, Err: errText(rd.Err), Model: clip(rd.Model, maxIDBytes), Attempts: rd.Attempts,
			InputTokens: rd.InputTokens, Truncated: rd.Truncated, Identifiers: rd.Identifiers,
			Shape: rd.Shape, AlignedFallback: rd.AlignedFallback, CachedTokens: rd.CachedTokens}
		if rd.Usage != nil {
			x.HasUsage, x.PromptTokens, x.CompletionTokens = true, rd.Usage.PromptTokens, rd.Usage.CompletionTokens
		}
		rec.Rounds = append(rec.Rounds, x)
	}
	return rec
}

// withoutContent is a copy of rec without captured text.
func (rec *record) withoutContent() *record {
	c := *rec
	c.Rounds = make([]round, len(rec.Rounds))
	for i, rd := range rec.Rounds {
		rd.Content = nil
		c.Rounds[i] = rd
	}
	c.FallbackContent = nil
	c.ContentDropped, c.contentBytes = true, 0
	return &c
}

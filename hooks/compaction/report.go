package compaction

import (
	"context"
	"time"

	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/engine"
	"github.com/einocompact/einocompact/hooks/compaction/internal/ledger"
)

// Report is what one triggered run of a CompactionHook found and did. The
// hook fills the trigger numbers; the summarization compactor adds one
// Round per summarizer call.
type Report struct {
	// Step is State.StepCount when the hook ran: the number of steps (model
	// calls) already completed. The step this compaction came before, as
	// the project shows it everywhere, is BeforeStep.
	Step           int
	Estimated      int     // estimated size of the coming model call
	ProviderTokens int     // State.ContextTokens as the hook found it; 0 = unknown
	Trigger        float64 // ContextWindow*CompactAt
	Triggered      bool    // Estimated >= Trigger
	Overhead       int     // Estimated minus the counter's size of the messages
	Target         int     // the target handed to the compactor
	// Deep says the compaction was asked to go deeper than Target: a
	// SummarizationCompactor then summarizes everything but the newest
	// fifth of the window, which it keeps verbatim, because the prices
	// (HookConfig.Prices, or the assumed PricesOpenAI) make that cheaper
	// per call. Other compactors aim at Target all the same; a
	// ToolResultPruningCompactor a summarization stage of a Pipeline
	// follows also leaves that fifth alone.
	Deep      bool
	keep      int  // the verbatim floor of a Deep compaction, in tokens; unused when not Deep
	Compacted bool // the compactor returned a new conversation
	// BackedOff: triggered, but the compactor was not called because a
	// compaction of this conversation failed recently (see CompactionHook).
	BackedOff bool
	// StepGrowth is the median size, by the counter, of the agent steps in
	// the conversation the compaction started from (at least a hundredth
	// of ContextWindow), and RoomSteps the room the compaction left below
	// the trigger in such steps: (Trigger - TokensAfter - Overhead) /
	// StepGrowth. Both 0 unless a triggered compaction applied.
	StepGrowth int
	RoomSteps  float64
	// Deeper: the compaction first left less than two steps of room, so
	// the SummarizationCompactor went deeper at once (Deep): everything
	// older than the verbatim floor was summarized, MinKeepSteps spared.
	Deeper bool
	// NoRoom: the compaction left less than two steps of room below the
	// trigger and nothing deeper was allowed (or a prepared compaction
	// left it so; the rest is prepared in the background). The hook does
	// not compact this conversation again below the ceiling halfway from
	// CompactAt to the window: such a compaction would buy as little.
	NoRoom bool
	// RoomHeld: triggered, but the conversation's last compaction bought
	// too little room (NoRoom) and the call is below the ceiling, so it
	// went out uncompacted.
	RoomHeld bool
	// Overflow: the coming model call is still estimated above
	// ContextWindow after this compaction, because nothing compactable was
	// left or compaction failed. The call goes out; the hook logs an error.
	Overflow bool

	MessagesBefore, MessagesAfter int // conversation length before and after
	TokensBefore, TokensAfter     int // counter's size of the messages before and after

	Rounds   []Round       // summarizer rounds, in order (summarizing compactors only)
	Duration time.Duration // time spent in the compactor, in the background too
	// Err says why the compaction failed: the error Decide returns (the
	// compactor's, a refused result, the run's ctx), or, when Decide
	// returns nil, why nothing was applied: every summarizer round failed
	// (RaiseOnFailure false; it wraps the last round's error, so a dead
	// summarizer never reads as nothing left to compact) or the result was
	// not smaller. Nil when the compaction applied, or declined because
	// nothing could be compacted; only a non-nil Err starts the backoff.
	Err error
	// Fallback names the model-free compaction that ran because the
	// compaction (failed, declined or too small) left the coming call
	// estimated above ContextWindow less FallbackMargin (see
	// HookConfig.DisableFallback): StrategyToolResultPruning,
	// StrategySlidingWindow, or both joined by "+" in the order they ran.
	// Compacted and the sizes after then include its work, and Err still
	// says why the compaction failed, if it did. "" when no fallback ran.
	Fallback string
	// ArchiveRef is the reference under which HookConfig.Archive keeps what
	// this compaction removed (see NewRecallTool); "" when none is set or
	// nothing was archived.
	ArchiveRef string

	// Prepared says the compaction applied was computed in the background
	// (HookConfig.PrepareAt). Rounds and Duration then include that
	// background work; when the result still left the call at the trigger,
	// a synchronous compaction followed and its rounds come after.
	Prepared bool
	// Shared says the compaction applied was written by a hook sharing
	// HookConfig.Store (maybe another process), and this hook did not call
	// its compactor for it.
	Shared bool
	// Stall is how long this model call waited for compaction: about zero
	// when a prepared result was ready, the rest of its work when it was
	// still running, the whole compaction when it ran synchronously.
	Stall time.Duration
	// Deferred: triggered while the compaction prepared in the background
	// for this conversation was still being written, and below the ceiling
	// of HookConfig.PrepareAt, so the call went out uncompacted without
	// waiting (Stall 0). A later call applies the prepared compaction.
	Deferred bool
	// Preparing says this call started preparing a compaction in the
	// background (HookConfig.PrepareAt): its estimate reached PrepareAt
	// below the trigger (such a call goes to no Observer; Decide returns
	// its Report), or the compaction it applied left it at or above
	// PrepareAt.
	Preparing bool
	// InvalidatedTokens estimates the cached prefix the applied compaction
	// made the provider drop: by the counter, the part of the previous
	// request (the conversation up to its last assistant reply) from the
	// first message the compaction changed. The next call sends it anew,
	// uncached. 0 when nothing was applied.
	InvalidatedTokens int
	// ColdCache: the provider's cache of the conversation had expired
	// (hooks.State.LastModelCallAt older than Prices.CacheTTL), so a
	// compaction applied at this call invalidated nothing
	// (InvalidatedTokens 0). With Triggered false and Compacted true, the
	// call was compacted below the trigger for that reason: it applied a
	// compaction prepared in the background (see HookConfig.PrepareAt), or,
	// without PrepareAt, it was near the trigger (see HookConfig.Prices).
	ColdCache bool
	// Unprofitable: HookConfig.Prices is set and the compaction's result was
	// not applied, because re-sending what it keeps costs more than the
	// calls until the next compaction save. The hook then backs off like
	// after a failure.
	Unprofitable bool
}

// BeforeStep is the number of the step this compaction came before, in the
// one numbering the project shows (hooks.State.StepCount defines it): step
// N is the run's Nth model call, counting from 1, so a hook at BeforeLLM
// runs before step State.StepCount+1. The hook's log lines ("step"), the
// fx demo's report and the compaction inspector all show this number.
func (r Report) BeforeStep() int { return r.Step + 1 }

// PreparedDone describes a compaction prepared in the background when it
// finishes (HookConfig.OnPrepared). Its rounds are reported with the model
// call that applies it.
type PreparedDone struct {
	Step     int           // State.StepCount of the model call that started it
	Duration time.Duration // time spent in the compactor
	// Err says why the compaction failed: the error Decide returns (the
	// compactor's, a refused result, the run's ctx), or, when Decide
	// returns nil, why nothing was applied: every summarizer round failed
	// (RaiseOnFailure false; it wraps the last round's error, so a dead
	// summarizer never reads as nothing left to compact) or the result was
	// not smaller. Nil when the compaction applied, or declined because
	// nothing could be compacted; only a non-nil Err starts the backoff.
	Err      error
	Declined bool // the compactor found nothing to compact
	// Refused says the compactor's result will not be applied: it breaks
	// tool-call pairing or is not smaller by the counter. Like a failure,
	// it is prepared again once the conversation has grown (see
	// HookConfig.PrepareAt).
	Refused bool
}

// VerbatimFloor is how many of the newest tokens a Deep compaction was
// asked to keep verbatim, by the hook's counter: a fifth of ContextWindow
// and 0.2 % more, rounded up. It is kept in whole steps, so the messages
// kept may hold more; with a floor so large that the next call would
// compact again at once, the compaction went towards Target instead. 0 when
// the compaction was not Deep.
func (r Report) VerbatimFloor() int {
	if !r.Deep {
		return 0
	}
	return max(r.keep, 0)
}

// Saved is how many tokens the compaction removed, by the counter.
func (r Report) Saved() int {
	if !r.Compacted {
		return 0
	}
	return r.TokensBefore - r.TokensAfter
}

// Observer receives the Report of every triggered compaction.
// ObserveCompaction is called synchronously on the goroutine running the
// hook, before the model call it precedes: keep it fast, and safe for
// concurrent use when the hook serves several runs.
type Observer interface {
	ObserveCompaction(ctx context.Context, r Report)
}

// ObserverFunc adapts an ordinary function to Observer.
type ObserverFunc func(ctx context.Context, r Report)

// ObserveCompaction calls f.
func (f ObserverFunc) ObserveCompaction(ctx context.Context, r Report) { f(ctx, r) }

// reportRound adds r to the Report of the compaction running under ctx. A
// compactor calls it once per summarizer round; outside a CompactionHook it
// does nothing.
func reportRound(ctx context.Context, r Round) {
	engine.ReportRound(ctx, engine.Round{Usage: r.Usage, Err: r.Err, Data: r})
}

// reportOf copies the engine's report out; TestReportCopiesEveryField
// checks that no field is left behind.
func reportOf(r *engine.Report) Report {
	out := Report{Step: r.Step, Estimated: r.Estimated, ProviderTokens: r.ProviderTokens, Trigger: r.Trigger,
		Triggered: r.Triggered, Overhead: r.Overhead, Target: r.Target, Deep: r.Deep, keep: r.Keep, Compacted: r.Compacted,
		BackedOff: r.BackedOff, StepGrowth: r.StepGrowth, RoomSteps: r.RoomSteps, Deeper: r.Deeper, NoRoom: r.NoRoom,
		RoomHeld: r.RoomHeld, Overflow: r.Overflow, MessagesBefore: r.MessagesBefore, MessagesAfter: r.MessagesAfter,
		TokensBefore: r.TokensBefore, TokensAfter: r.TokensAfter, Duration: r.Duration, Err: r.Err, Fallback: r.Fallback,
		ArchiveRef: r.ArchiveRef, Prepared: r.Prepared, Shared: r.Shared, Stall: r.Stall, Deferred: r.Deferred,
		Preparing: r.Preparing, InvalidatedTokens: r.InvalidatedTokens, ColdCache: r.ColdCache, Unprofitable: r.Unprofitable}
	if len(r.Rounds) > 0 {
		out.Rounds = make([]Round, 0, len(r.Rounds))
		for _, rd := range r.Rounds {
			if v, ok := rd.Data.(Round); ok {
				out.Rounds = append(out.Rounds, v)
			}
		}
	}
	return out
}

// ComponentCompaction is the Eino component kind under which a CompactionHook
// reports to callback handlers: OnStart with a *CompactionInput, then OnEnd
// with the *Report, or OnError.
const ComponentCompaction components.Component = "Compaction"

// CompactionInput is the OnStart payload of a compaction's Eino callbacks.
type CompactionInput struct {
	Step      int
	Estimated int
	Target    int
	Messages  int
}

// Observers returns an Observer that calls each of obs in order; nil entries
// are skipped.
func Observers(obs ...Observer) Observer {
	return ObserverFunc(func(ctx context.Context, r Report) {
		for _, o := range obs {
			if o != nil {
				o.ObserveCompaction(ctx, r)
			}
		}
	})
}

// Round reports one summarization round.
type Round struct {
	// Tier is the tier the plan came from (one of the Tier constants).
	Tier string
	// Indices are the replaced positions in the conversation as it stood
	// at the start of the round.
	Indices []int
	// TokensBefore is the conversation's size at the start of the round.
	TokensBefore int
	// TokensAfter is its size with the summary in place; 0 when the round
	// failed before the summary could be measured.
	TokensAfter int
	// Latency is how long the chat model took.
	Latency time.Duration
	// Usage is the chat model's reported usage, nil when it reported none.
	Usage *schema.TokenUsage
	// Err is why the round failed; nil for a successful round.
	Err error
	// Model names the summarizer (its Eino component type, else its Go type).
	Model string
	// Attempts is how many calls the summarizer made, when it records them
	// (as summarizer/failover does); 1 otherwise.
	Attempts int
	// InputTokens is the counter's size of the request the round's
	// summarizer call sent, in either Shape: every message of it (the
	// instruction, the transcript or the agent's messages, the budget
	// sentence) and the tool schemas sent with it, which only a
	// cache-aligned request carries (the agent's tools); a transcript
	// request sends none. It is what the provider bills as input, as the
	// counter estimates it.
	InputTokens int
	// TranscriptTokens is the counter's size of the transcript a transcript
	// request showed, without the instruction and tags around it: what
	// MaxRoundInputTokens caps. 0 for a cache-aligned request, whose
	// whole size (InputTokens) is what that cap applies to.
	TranscriptTokens int
	// Truncated is how many messages had a text cut in the transcript sent:
	// by MaxTextTokens, which is on by default, or to fit
	// MaxRoundInputTokens.
	Truncated int
	// Identifiers reports the identifier ledger's work in this round.
	Identifiers IdentifierStats
	// Shape is the request whose reply the round used: ShapeTranscript or
	// ShapeCacheAligned (SummarizationConfig.CacheAligned).
	Shape string
	// AlignedFallback says why a CacheAligned compactor's round used the
	// transcript request (FallbackToolCall, FallbackEmptyReply,
	// FallbackOverBudget, FallbackNotSent); "" when it did not, or when
	// CacheAligned is off.
	AlignedFallback string
	// CachedTokens is the prompt tokens the provider reported reading from
	// its cache (Usage.PromptTokenDetails.CachedTokens), over the round's
	// calls; 0 when it reported none.
	CachedTokens int
	// MaxOutputTokens is the max output tokens the round's calls were sent
	// (model.WithMaxTokens): the output budget of the model's text for the
	// replaced messages, in the compaction counter's tokens, plus a quarter
	// of headroom; the identifier ledger's block and the tags, which code
	// appends, are not in it. At most SummarizationConfig.MaxRoundOutputTokens
	// when that is set. 0 when the round failed before sizing it.
	MaxOutputTokens int
	// OutputCap is how the round's last call sent its cap:
	// OutputCapMaxTokens, OutputCapMaxCompletionTokens or OutputCapNone
	// (see SummarizationConfig.MaxCompletionTokensOption); "" when no call
	// was made.
	OutputCap string
	// ReasoningRoom is what the round's last call added to MaxOutputTokens
	// for hidden reasoning, once the compactor learned its summarizer needs
	// it (CapRetryReasoning); 0 otherwise.
	ReasoningRoom int
	// CapRetries says, in order, why the round made a call again with
	// another cap (CapRetryRejected, CapRetryReasoning); nil when it did not.
	CapRetries []string
}

// IdentifierStats reports what the ledger found and did in one round.
type IdentifierStats struct {
	Found    int // identifiers in the replaced messages (and folded summaries' ledgers)
	Survived int // of those, found in the summary as written, verbatim or marked as data
	Appended int // lost ones appended verbatim by the ledger
	Dropped  int // lost ones left out to respect MaxTokens
}

// SurvivalRate is Survived/Found before repair; 1 when nothing was found.
func (s IdentifierStats) SurvivalRate() float64 { return ledger.Stats(s).SurvivalRate() }

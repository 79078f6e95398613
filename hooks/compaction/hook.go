package compaction

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"time"

	"github.com/cloudwego/eino/callbacks"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction/internal/cost"
	"github.com/einocompact/einocompact/hooks/compaction/internal/jobs"
	"github.com/einocompact/einocompact/hooks/compaction/internal/shape"
)

// HookConfig configures a CompactionHook.
type HookConfig struct {
	// Compactor decides what to replace. Required.
	Compactor Compactor
	// ContextWindow is the model's context size in tokens. Required, >= 1.
	ContextWindow int
	// CompactAt is the fraction of ContextWindow at which compaction starts.
	// Default 0.7.
	CompactAt float64
	// CompactTo is the fraction of ContextWindow compaction aims for.
	// Default 0.4. After defaults, 0 < CompactTo < CompactAt <= 1. When it
	// lies within 1/13 below CompactAt, the hook aims a little lower, just
	// under 12/13 of CompactAt (see Thresholds). A SummarizationCompactor
	// goes deeper when the prices make that cheaper (see Prices and
	// AimAtCompactTo).
	CompactTo float64
	// TokenCounter measures messages locally and is handed to the compactor.
	// Default: an ApproximateTokenCounter with default settings.
	TokenCounter TokenCounter
	// Logger receives one record per triggered compaction, its outcome: at
	// Debug when it is routine (applied, declined, abandoned because the
	// run ended, not applied because it would not pay for itself), at Warn
	// (Error when the coming call is still above the window, or the
	// compactor broke tool-call pairing) when something failed; and Debug
	// records for the estimate and the trigger. Nothing is logged at Info:
	// the application decides what to show (an Observer receives every
	// Report). Default slog.Default().
	Logger *slog.Logger
	// Observer, when set, receives the Report of every triggered compaction,
	// synchronously. Default none.
	Observer Observer
	// PrepareAt is the fraction of ContextWindow at which the hook starts
	// preparing a compaction in the background, so that the model call
	// reaching CompactAt finds the summary ready instead of waiting for it
	// (see the package documentation of prepared compaction). 0, the
	// default, compacts synchronously at CompactAt; otherwise
	// CompactTo < PrepareAt < CompactAt. The default is fx's too:
	// preparing removes the stall but costs 2 to 10 % more of the bill;
	// docs/configuration.md ("Choosing prepare_at") has the measurements
	// and the value to set, 0.45, for an agent that must not wait.
	//
	// With PrepareAt set, CompactAt is where a compaction is applied as soon
	// as it is ready. While the compaction prepared for a conversation is
	// still being written, a call estimated at or above CompactAt but below
	// the ceiling, halfway from CompactAt to the window
	// (ContextWindow*(CompactAt+1)/2), goes out uncompacted instead of
	// waiting (Report.Deferred); the first call at the trigger after the
	// compaction finished applies it. A call at or above the ceiling waits
	// for the compaction still running. A call may therefore exceed
	// CompactAt up to the ceiling while the summary is being written, never
	// the window.
	//
	// A preparation that fails (the compactor errs or declines after failed
	// summarizer rounds, or returns a result the trigger would refuse) is
	// started again (one that declined without a failure at the next call), like a failed
	// compaction at the trigger, once the conversation has grown by 10 % of
	// ContextWindow since it started or 8 model calls have passed: the
	// trigger then usually finds a summary ready after a transient error,
	// and a dead summarizer costs one background call every few calls.
	PrepareAt float64
	// OnPrepared, when set, is called each time a compaction prepared in
	// the background (PrepareAt) finishes, on the goroutine that ran it,
	// with the ctx of the run that started it (without its cancellation).
	// It is called after the hook recorded the outcome, so a model call
	// made after it returns finds the compaction finished. Keep it fast;
	// it must be safe for concurrent use when the hook serves several runs.
	// Default none.
	OnPrepared func(ctx context.Context, d PreparedDone)

	// DisableFallback turns off the model-free fallback. By default,
	// whenever a triggered compaction leaves the coming call estimated
	// above ContextWindow less FallbackMargin (5 %, for counting error),
	// whatever the compactor said (it failed without failing the run, its
	// result was not smaller, it declined, or it shrank the conversation
	// too little), the hook compacts towards the usual target without a
	// model: tool-result pruning, then the sliding window, each with its
	// defaults, so the provider does not reject the call for its length
	// while anything can be removed (Report.Fallback, a Warn record). A
	// call above that line is compacted even when CompactAt is higher.
	// What the sliding window drops is lost; set this to keep the
	// conversation whole and let the call go out too large (Report.Overflow).
	DisableFallback bool

	// Archive, when set, keeps every message a compaction removes, and the
	// messages that replace them end with a line naming the reference that
	// reads them back with the recall tool (NewRecallTool; Report.ArchiveRef).
	// Default nil: what a compaction removes is gone.
	Archive Archive

	// Store, when set, shares compactions with every hook using the same
	// store (the replicas of a service; see Store and docs/deployment.md):
	// a conversation prefix is compacted once across them, and a result
	// prepared by one is applied by another. The compactor must implement
	// Identifier. Default nil: compactions stay in this hook.
	Store Store
	// StoreScope is added to the identity under which results are shared:
	// name there what the compactor's identity cannot see and changes its
	// output, such as the summarizer's model name. Default "".
	StoreScope string
	// StoreTimeout bounds each call to the Store. A call that fails or
	// takes longer leaves the store alone for StoreCooldown, during which
	// the hook compacts as without one. Default 250ms.
	StoreTimeout time.Duration
	// StoreCooldown is how long the hook leaves a failed store alone
	// before trying it again: long enough that a store that is down costs
	// a run one timeout every few seconds, not one per call. Default 5s.
	StoreCooldown time.Duration
	// StoreLease is the longest a claim on a conversation prefix holds
	// while its compaction is written: the holder renews its claim
	// (StoreLiveness) while its compactor runs, up to this long, so that
	// no other hook claims the prefix while it is alive. Default 2
	// minutes.
	StoreLease time.Duration
	// StoreMaxWait is the longest a hook waits for a compaction another
	// hook holds a live claim on before it compacts the conversation
	// itself: a holder whose summarizer is slow or hangs inside a live
	// process keeps renewing its claim, and only this bounds the wait for
	// it. The holder's result, when it comes, is still published (under
	// its own claim, token-fenced) for the next hook to find. At most
	// StoreLease. Default 4s (or StoreLease when that is shorter): with the
	// default StoreLiveness, a holder that stopped renewing is waited for
	// 3s at most, and one that renews 1s more.
	StoreMaxWait time.Duration
	// StoreLiveness is how long a claim holds without being renewed. The
	// holder renews it every third of this while its compactor runs and
	// ends it (token-fenced, retried on a fresh bounded ctx) on every path,
	// so a holder that dies, hangs, is closed or loses its link to the
	// store keeps the other hooks waiting at most this long, plus the
	// store's poll (docs/deployment.md). At most StoreLease. Default 3s,
	// or 4×StoreTimeout when that is longer; must be at least
	// 2×StoreTimeout, so that a renewal ends before the claim does.
	StoreLiveness time.Duration
	// StoreTTL is how long a shared result is kept. Default 10 minutes.
	StoreTTL time.Duration

	// Prices are the agent's model's token prices, relative to an uncached
	// input token (see docs/compaction.md, "The bill"). They choose how
	// deep a compaction goes: when the cost model finds the calls until
	// the next compaction cheaper that way, a SummarizationCompactor
	// summarizes everything but the newest fifth of the window (and 0.2 %
	// of it more, for rounding), which it keeps verbatim, instead of
	// stopping at CompactTo; a prepared compaction (PrepareAt) counts what is appended
	// while it is written towards that fifth. Nil, the default, assumes
	// PricesOpenAI (automatic prompt caching, cached input at a tenth,
	// output at eight times an input token): under every preset the
	// deeper compaction costs less (docs/benchmarks.md). Set explicitly,
	// they also make every compaction pay for itself: without PrepareAt, a
	// result is not applied (Report.Unprofitable, backed off like a
	// failure) when re-sending what it keeps, uncached, costs more than the
	// calls until the next compaction save, unless the call is at or above
	// the ceiling halfway from CompactAt to the window, which no backoff
	// holds either. Their CacheTTL
	// (PricesOpenAI's 5 minutes when nil) is the cache's clock: when the
	// previous model call returned longer ago (hooks.State
	// LastModelCallAt), the coming call finds nothing cached, so a
	// compaction applied then counts no invalidated prefix and always pays,
	// and a compaction prepared in the background (PrepareAt) that is
	// ready is applied at once, below CompactAt (Report.ColdCache); without
	// PrepareAt, a cold call in the last third of the way from CompactTo
	// to CompactAt is compacted at once.
	// Presets: PricesOpenAI, PricesAnthropic, PricesNoCache.
	Prices *Prices
	// AimAtCompactTo makes every compaction aim at CompactTo, as the
	// reference does, however the prices weigh a deeper one. Default
	// false.
	AimAtCompactTo bool
}

// CompactionHook decides when to compact. Registered at hooks.BeforeLLM, it
// estimates the size of the coming model call and, once that reaches
// ContextWindow*CompactAt, asks its Compactor to bring the conversation down to
// ContextWindow*CompactTo, then replaces State.Messages with the result. When
// the prices make it cheaper (HookConfig.Prices; by default they do), a
// SummarizationCompactor is asked to go deeper (Report.Deep): it keeps the
// newest fifth of the window verbatim and summarizes everything older.
//
// The estimate trusts State.ContextTokens (the provider's size of the last
// call) when it is known and counts locally only the messages added after the
// last assistant reply; with ContextTokens 0 it counts the whole conversation
// and the tool schemas. The part of the provider's number that the counter
// does not see (tool schemas, chat template) is kept as overhead and
// subtracted from the target.
//
// The hook does not trust its compactor: a result that breaks tool-call
// pairing is refused with an error wrapping ErrBrokenToolPairing, one that is
// not smaller by the counter is ignored, and a run whose ctx ends while the
// compactor works gets an error wrapping ctx.Err(). In all three cases
// State.Messages is left as it was, with one exception (HookConfig.PrepareAt):
// when a prepared compaction was applied and the call, still at or above the
// ceiling, compacts further at once, an error of that second compaction is
// returned with State.Messages holding the prepared result, which passed the
// same checks.
//
// A CompactionHook keeps no per-run state and may serve many runs at once.
// It implements hooks.Hook, hooks.PointLimiter, hooks.WarmUpper and hooks.Closer.
type CompactionHook struct {
	compactor  Compactor
	counter    TokenCounter
	window     int
	at, to     float64
	prepareAt  float64 // 0: no prepared compactions
	onPrepared func(context.Context, PreparedDone)
	log        *slog.Logger
	observer   Observer
	kind       string          // the compactor's type name, for errors and callbacks
	jobs       *jobs.Set[*job] // compactor calls in flight and prepared results
	backoff    jobs.Backoffs
	noRoom     jobs.Backoffs     // conversations whose last compaction bought too little room (see room.go)
	fallback   []fallbackStage   // nil: HookConfig.DisableFallback
	sharing    *sharing          // nil: no Store
	archive    Archive           // nil: nothing archived
	prices     *Prices           // HookConfig.Prices; nil: no pay-for-itself rule
	depth      *Prices           // the prices that choose the depth; nil: HookConfig.AimAtCompactTo
	outputs    *cost.OutputCosts // the summarizer's billed output per visible token, learned from its rounds
	now        func() time.Time
}

var (
	_ hooks.Hook         = (*CompactionHook)(nil)
	_ hooks.PointLimiter = (*CompactionHook)(nil)
	_ hooks.WarmUpper    = (*CompactionHook)(nil)
	_ hooks.Closer       = (*CompactionHook)(nil)
)

// NewCompactionHook validates cfg, applies its defaults and returns the hook.
// Errors name the offending field and its value. A target
// (ContextWindow*CompactTo, or the lower one Thresholds aims for) at or below
// the floor of a compactor that implements SizeFloor is rejected too, since
// every call would compact again.
func NewCompactionHook(ctx context.Context, cfg *HookConfig) (*CompactionHook, error) {
	if cfg == nil {
		return nil, fmt.Errorf("compaction: nil HookConfig")
	}
	if cfg.Compactor == nil {
		return nil, fmt.Errorf("compaction: HookConfig.Compactor is required")
	}
	if cfg.ContextWindow < 1 {
		return nil, fmt.Errorf("compaction: HookConfig.ContextWindow must be a positive number of tokens, got %d", cfg.ContextWindow)
	}
	at, to := cfg.CompactAt, cfg.CompactTo
	if at == 0 {
		at = 0.7
	}
	if to == 0 {
		to = 0.4
	}
	if !(0 < to && to < at && at <= 1) || math.IsNaN(at) || math.IsNaN(to) {
		return nil, fmt.Errorf("compaction: HookConfig needs 0 < CompactTo < CompactAt <= 1, got CompactAt=%v CompactTo=%v", at, to)
	}
	if p := cfg.PrepareAt; p != 0 && (!(to < p && p < at) || math.IsNaN(p)) {
		return nil, fmt.Errorf("compaction: HookConfig needs CompactTo < PrepareAt < CompactAt (or PrepareAt 0: off), got PrepareAt=%v CompactAt=%v CompactTo=%v", p, at, to)
	}
	if err := checkFloor(cfg.Compactor, cfg.ContextWindow, at, to); err != nil {
		return nil, err
	}
	if err := checkArchive(cfg.Archive); err != nil {
		return nil, err
	}
	counter := cfg.TokenCounter
	if counter == nil {
		counter = DefaultCounter()
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	var prices *Prices
	if cfg.Prices != nil {
		if err := cfg.Prices.Validate(); err != nil {
			return nil, fmt.Errorf("compaction: HookConfig.Prices: %w", err)
		}
		p := *cfg.Prices
		prices = &p
	}
	depth := prices
	if depth == nil {
		assumed := PricesOpenAI
		depth = &assumed
	}
	if cfg.AimAtCompactTo {
		depth = nil
	}
	h := &CompactionHook{compactor: cfg.Compactor, counter: counter, window: cfg.ContextWindow, at: at, to: to, prepareAt: cfg.PrepareAt,
		onPrepared: cfg.OnPrepared, log: log, observer: cfg.Observer, kind: compactorType(cfg.Compactor), jobs: jobs.NewSet[*job](),
		prices: prices, depth: depth, outputs: &cost.OutputCosts{}, now: time.Now, archive: cfg.Archive}
	if !cfg.DisableFallback {
		fb, err := newFallback(ctx)
		if err != nil {
			return nil, err
		}
		h.fallback = fb
	}
	if cfg.Store != nil {
		s, err := newSharing(h, cfg)
		if err != nil {
			return nil, err
		}
		h.sharing = s
	}
	return h, nil
}

// Name identifies the hook in errors and logs.
func (h *CompactionHook) Name() string { return "CompactionHook" }

// AllowedPoints implements hooks.PointLimiter: compaction only makes sense
// right before a model call.
func (h *CompactionHook) AllowedPoints() []hooks.Point { return []hooks.Point{hooks.BeforeLLM} }

// Counter returns the hook's token counter.
func (h *CompactionHook) Counter() TokenCounter { return h.counter }

// Compactor returns the hook's compactor.
func (h *CompactionHook) Compactor() Compactor { return h.compactor }

// ceiling is the size in tokens at or above which a triggered call is
// compacted whatever happened before: it no longer goes out uncompacted
// while its prepared compaction is still being written (HookConfig.PrepareAt),
// no backoff holds it back, and no result is refused as unprofitable
// (HookConfig.Prices). It lies halfway from CompactAt to the window, and
// never above the fallback line (limit). Halfway leaves room below the
// window for the one tool result that can arrive between two calls (the
// simulation's largest are a quarter of the window), and of the ceilings
// measured in the simulation (0.80 to 0.925 of the window) it is the
// lowest that meets the p95 stall target; see docs/compaction.md.
func (h *CompactionHook) ceiling() float64 {
	return min(float64(h.window)*(h.at+(1-h.at)/2), h.limit())
}

// FallbackMargin is the share of the context window kept free for counting
// error: a call estimated above ContextWindow*(1-FallbackMargin) is
// compacted, and when the compactor leaves it there (it failed, declined or
// shrank too little), the model-free fallback runs (HookConfig.DisableFallback).
// The estimate takes the provider's size of the last call and counts only
// what was added since, so its error is the counter's on the newest
// messages: the approximate counter's mean error per message is about 20 %
// (docs/counters.md), and one step adds at most about a quarter of the
// window in the simulation, so 5 % of the window covers it. A run died with
// HTTP 400 at an estimate of 2,997 against a 3,000-token window (the
// provider counted 3,008) when the fallback waited for the window itself.
const FallbackMargin = 0.05

// limit is the largest call size in tokens the hook lets go out while the
// fallback can remove anything: ContextWindow less FallbackMargin.
func (h *CompactionHook) limit() float64 {
	return float64(h.window) * (1 - FallbackMargin)
}

// Thresholds returns the trigger and target sizes in tokens before overhead:
// ContextWindow*CompactAt, and ContextWindow*CompactTo or, when that lies
// within 1/13 below the trigger, the largest target whose band stays below
// the trigger (bandBelow).
func (h *CompactionHook) Thresholds() (trigger float64, target int) {
	trigger = float64(h.window) * h.at
	return trigger, min(int(float64(h.window)*h.to), bandBelow(trigger))
}

// bandBelow is the largest target whose band above it stays below trigger.
// A SummarizationCompactor stops once within target/closeEnough above its
// target, and plans a round into that band to spare the newest steps
// (recentShare). With CompactTo that close to CompactAt, such a compaction
// left the call at the trigger, so the next call compacted again, or above
// the window when CompactAt is 1 (TestHookBandBelowTrigger).
func bandBelow(trigger float64) int {
	return int(math.Ceil(trigger*closeEnough/(closeEnough+1))) - 1
}

// Run implements hooks.Hook.
func (h *CompactionHook) Run(ctx context.Context, state *hooks.State) error {
	_, err := h.Decide(ctx, state)
	return err
}

// Decide runs the hook on state and returns its Report. Run is Decide
// without the report. When the estimate triggers compaction, the report also
// goes to the Observer and to Eino callback handlers in ctx (component
// ComponentCompaction); the compactor runs on a ctx without the agent's
// callback handlers.
func (h *CompactionHook) Decide(ctx context.Context, state *hooks.State) (Report, error) {
	if state == nil {
		return Report{}, fmt.Errorf("compaction: nil state")
	}
	if err := ctx.Err(); err != nil {
		return Report{}, fmt.Errorf("compaction: %w", err)
	}
	messages := state.Messages
	r := Report{Step: state.StepCount, ProviderTokens: state.ContextTokens, MessagesBefore: len(messages), MessagesAfter: len(messages)}
	est, err := h.estimate(ctx, messages, state.Tools, state.ContextTokens)
	if err != nil {
		return r, withCtxErr(ctx, err)
	}
	trigger, base := h.Thresholds()
	r.Estimated, r.Trigger = est, trigger
	// Above the fallback line a call is compacted even when CompactAt is
	// higher: the provider would reject it for its length.
	r.Triggered = float64(est) >= trigger || float64(est) > h.limit()
	r.ColdCache = h.cold(state)
	// Checked first: this runs before every model call, and building the
	// record's arguments allocates even when debug logging is off.
	if h.log.Enabled(ctx, slog.LevelDebug) {
		h.log.DebugContext(ctx, "compaction estimate", "step", state.StepCount+1, "estimated_tokens", est,
			"provider_tokens", state.ContextTokens, "trigger_tokens", trigger, "triggered", r.Triggered)
	}
	// early: a cold cache and a prepared compaction ready below the
	// trigger; coldNow: a cold cache and a synchronous hook near the
	// trigger (see hook_cold.go).
	early, coldNow := h.coldEarly(ctx, state, &r)
	if !r.Triggered && !early && !coldNow {
		if h.prepareAt > 0 {
			r.Preparing = h.prepare(ctx, state, est)
		}
		return r, nil
	}
	if !early && (h.backedOff(ctx, messages, &r) || h.waits(ctx, state, &r)) {
		return r, nil
	}
	stallStart := time.Now()

	msgTokens, err := h.counter.Count(ctx, messages, nil)
	if err != nil {
		return r, withCtxErr(ctx, fmt.Errorf("compaction: counting messages: %w", err))
	}
	r.TokensBefore, r.TokensAfter = msgTokens, msgTokens
	r.Overhead = est - msgTokens
	if r.Overhead < 0 {
		h.log.WarnContext(ctx, "TokenCounter estimated more tokens for the messages than the estimated total context size; the counter may overestimate",
			"message_tokens", msgTokens, "estimated_tokens", est)
	}
	r.Target = max(base-r.Overhead, 0)
	if r.keep, err = h.billKeep(ctx, messages, est, r.Overhead, r.Target+r.Overhead, h.verbatimFloor()); err != nil {
		return r, withCtxErr(ctx, err)
	}
	r.Deep = r.keep >= 0
	h.warnFixedPart(ctx, messages, state.Tools, base)
	// Debug: the outcome has its own record (Debug when routine, Warn when
	// something failed); a library logs nothing routine at Info.
	if h.log.Enabled(ctx, slog.LevelDebug) {
		h.log.DebugContext(ctx, "compaction triggered", "step", state.StepCount+1, "estimated_tokens", est,
			"trigger_tokens", trigger, "target_tokens", r.Target, "overhead_tokens", r.Overhead, "messages", len(messages))
	}

	cbCtx := callbacks.ReuseHandlers(ctx, h.callbackRunInfo())
	cbCtx = callbacks.OnStart(cbCtx, &CompactionInput{Step: r.Step, Estimated: est, Target: r.Target, Messages: len(messages)})
	done := false
	if h.prepareAt > 0 {
		done, err = h.usePrepared(ctx, state, &r)
	}
	if !done && err == nil && !early {
		err = h.compactNow(ctx, state, &r)
	}
	if err == nil {
		err = h.finish(ctx, state, messages, &r)
	}
	if h.prepareAt > 0 && err == nil && r.Compacted && !r.Preparing {
		// A compaction that leaves the call at or above PrepareAt (what
		// was appended while a prepared one was written is kept) starts
		// preparing the next one now rather than at the next call: one
		// more huge tool result could otherwise carry the conversation
		// past the ceiling before it is written.
		r.Preparing = h.prepareAfterCompaction(ctx, state, r.TokensAfter+r.Overhead, messages)
	}
	r.Stall = time.Since(stallStart)
	if err != nil {
		r.Err = err
	}
	h.settle(ctx, messages, &r)
	if err != nil {
		callbacks.OnError(cbCtx, err)
	} else {
		callbacks.OnEnd(cbCtx, &r)
	}
	if h.observer != nil {
		h.observer.ObserveCompaction(ctx, r)
	}
	return r, err
}

// compactNow compacts a snapshot of State.Messages and waits for the
// result: the synchronous compaction, also the fallback when no prepared
// result is usable. When the conversation was rewritten while the compactor
// worked (also in place, in the caller's backing array), the result is
// discarded and the rewrite kept (see apply); the next triggered call
// compacts the rewritten conversation. r.TokensAfter is the size of State.Messages on entry.
func (h *CompactionHook) compactNow(ctx context.Context, state *hooks.State, r *Report) error {
	if h.sharing != nil {
		if done, err := h.compactShared(ctx, state, r); done || err != nil {
			return err
		}
	}
	// A snapshot, as prepared jobs take: the compactor must not read the
	// caller's backing array while something rewrites it in place (a
	// middleware redacting with append(s[:i], ...)), and only a copy lets
	// apply see such a rewrite and discard this result, which would bring
	// the rewritten content back (TestInPlaceRewriteDuringCompactionWins).
	messages := slices.Clone(state.Messages)
	// This compaction's outcome replaces that of a prepared one it follows.
	r.Err = nil
	jctx := WithRequestTools(ctx, state.Tools)
	if r.ColdCache {
		// Nothing of the agent's prefix is cached: see aligned_cold.go.
		jctx = withColdCache(jctx)
	}
	j := h.newJob(jctx, messages, r.TokensAfter, r.Target, r)
	compacted, err := h.compact(ctx, j, r)
	if err != nil || compacted == nil {
		return err
	}
	return withCtxErr(ctx, h.apply(ctx, state, messages, compacted, j.tokens, j.resultTokens, r))
}

// compact runs j and waits for it, or for ctx to end: a compactor that
// ignores ctx then finishes in the background, its result discarded, and
// Close waits for it. It adds the job's rounds and time to r and returns the
// compacted conversation, nil when the compactor declined.
func (h *CompactionHook) compact(ctx context.Context, j *job, r *Report) ([]*schema.Message, error) {
	j.Await()
	if !h.start(j) {
		h.runJob(j)
		h.publishShared(j)
	}
	select {
	case <-j.Done():
		r.Duration += j.duration
	case <-ctx.Done():
		// Stop the compactor if it listens; if not, its goroutine ends on
		// its own and nothing reads what it returns.
		j.cancel()
		r.Duration += time.Since(j.Started)
	}
	r.Rounds = append(r.Rounds, j.rounds.take()...)
	if cerr := ctx.Err(); cerr != nil {
		// The run ended while the compactor worked. Whatever it returned,
		// a cancelled run must say so and keep its conversation, also when
		// a custom compactor declined or ignored ctx.
		h.log.DebugContext(ctx, "compaction abandoned: the run's context ended", "step", r.BeforeStep(), "error", cerr.Error())
		var jerr error
		if j.Finished() {
			jerr = j.err
		}
		return nil, fmt.Errorf("compaction: %s: %w", h.kind, errors.Join(cerr, jerr))
	}
	return h.checked(ctx, j, r)
}

// checked judges a finished job: its error, a declined compaction, a result
// that breaks tool-call pairing. A compactor that declined because every
// summarizer round failed leaves the cause in r.Err (see Report.Err) and
// returns no error: RaiseOnFailure decides whether the run fails.
func (h *CompactionHook) checked(ctx context.Context, j *job, r *Report) ([]*schema.Message, error) {
	if j.err != nil && errors.Is(j.err, errNotShared) {
		// Not the compactor's failure: the caller compacts itself.
		h.log.DebugContext(ctx, "shared compaction unusable", "step", r.BeforeStep(), "error", j.err.Error())
		return nil, nil
	}
	if j.err != nil {
		h.log.WarnContext(ctx, "compaction failed", "step", r.BeforeStep(), "error", j.err.Error())
		return nil, fmt.Errorf("compaction: %s: %w", h.kind, j.err)
	}
	if j.result == nil {
		if cause := h.declineCause(j); cause != nil {
			// The compactor returned nothing because its model failed
			// (RaiseOnFailure false): that is a failure, not a
			// conversation with nothing left to compact.
			r.Err = cause
			h.log.WarnContext(ctx, "compaction failed: the summarizer failed and nothing was compacted", "step", r.BeforeStep(), "error", cause.Error())
			return nil, nil
		}
		h.log.DebugContext(ctx, "compaction declined: nothing left to compact", "step", r.BeforeStep(), "target_tokens", j.target)
		return nil, nil
	}
	// The hook does not trust its compactor: a custom one that orphans a
	// tool result would get every later model call rejected by the provider.
	if err := shape.NewFaults(j.Snapshot, j.result); err != nil {
		h.log.ErrorContext(ctx, "compaction refused: the compactor broke tool-call pairing", "step", r.BeforeStep(), "error", err.Error())
		return nil, fmt.Errorf("compaction: %s: %w", h.kind, err)
	}
	return j.result, nil
}

// declineCause returns why the finished job j returned no result although
// its compactor called a model: an error wrapping that of its last failed
// round. It returns nil when no round failed: the compactor found nothing it
// could compact (only the protected newest steps are left, or the
// conversation fits), which is no failure and starts no backoff.
func (h *CompactionHook) declineCause(j *job) error {
	var last error
	failed, rounds := 0, j.rounds.take()
	for _, rd := range rounds {
		if rd.Err != nil {
			failed, last = failed+1, rd.Err
		}
	}
	if last == nil {
		return nil
	}
	return fmt.Errorf("compaction: %s: %d of %d summarizer rounds failed, nothing was compacted: %w", h.kind, failed, len(rounds), last)
}

// apply swaps the compacted conversation into state, keeping any messages
// appended since snapshot was taken (see shape.MergeAppended), and rewrites
// ContextTokens to match it. before is the counter's size of snapshot,
// left that of result when already measured (0: not measured).
func (h *CompactionHook) apply(ctx context.Context, state *hooks.State, snapshot, result []*schema.Message, before, left int, r *Report) error {
	compacted, ok := shape.MergeAppended(snapshot, state.Messages, result)
	if !ok {
		h.log.WarnContext(ctx, "the conversation was rewritten while compaction ran; keeping that rewrite and dropping this compaction",
			"step", r.BeforeStep(), "messages_before", r.MessagesBefore, "messages_now", len(state.Messages))
		return nil
	}
	// Judge the compactor on what it was given and returned: messages
	// appended meanwhile are in neither, and must not hide its saving.
	var err error
	if left <= 0 {
		if left, err = h.counter.Count(ctx, result, nil); err != nil {
			return fmt.Errorf("compaction: counting the compacted messages: %w", err)
		}
	}
	if left >= before {
		// A compactor that makes things no smaller has done nothing useful;
		// keeping the original loses nothing.
		h.log.WarnContext(ctx, "compaction ignored: the compactor's result is not smaller",
			"step", r.BeforeStep(), "tokens_before", before, "tokens_after", left)
		r.Err = fmt.Errorf("compaction: %s: the result is not smaller (%d tokens, %d before); ignored", h.kind, left, before)
		return nil
	}
	if len(compacted) != len(result) {
		if left, err = h.counter.Count(ctx, compacted, nil); err != nil {
			return fmt.Errorf("compaction: counting the compacted messages: %w", err)
		}
	}
	if stop, err := h.weigh(ctx, state.Messages, compacted, left, r); err != nil || stop {
		return err
	}
	compacted, left = h.archiveRemoved(ctx, state.Messages, compacted, left, r)
	if state.ContextTokens != 0 {
		// Count only through the last assistant reply: a later hook in the
		// chain adds the trailing tool results itself, as this one did.
		head := compacted[:LastAssistantIndex(compacted)+1]
		n, err := h.counter.Count(ctx, head, nil)
		if err != nil {
			return fmt.Errorf("compaction: counting the compacted messages: %w", err)
		}
		// Keep the number positive: 0 would mean "unknown" to the next hook
		// and flip it into counting tool schemas it should not.
		state.ContextTokens = max(n+r.Overhead, 1)
	}
	state.Messages = compacted
	r.Compacted, r.MessagesAfter, r.TokensAfter = true, len(compacted), left
	h.log.DebugContext(ctx, "compaction applied", "step", r.BeforeStep(), "messages_before", r.MessagesBefore,
		"messages_after", r.MessagesAfter, "tokens_before", r.TokensBefore, "tokens_after", left,
		"target_tokens", r.Target, "rounds", len(r.Rounds), "duration", r.Duration, "prepared", r.Prepared, "shared", r.Shared, "fallback", r.Fallback)
	return nil
}

// estimate returns the expected size of the next model call. With
// contextTokens > 0 it is contextTokens plus the local count of the messages
// after the last assistant message; otherwise the local count of all messages
// and the tool schemas.
func (h *CompactionHook) estimate(ctx context.Context, messages []*schema.Message, tools []*schema.ToolInfo, contextTokens int) (int, error) {
	if contextTokens <= 0 {
		n, err := h.counter.Count(ctx, messages, tools)
		if err != nil {
			return 0, fmt.Errorf("compaction: counting the conversation: %w", err)
		}
		return n, nil
	}
	tail := messages[LastAssistantIndex(messages)+1:]
	n, err := h.counter.Count(ctx, tail, nil)
	if err != nil {
		return 0, fmt.Errorf("compaction: counting new messages: %w", err)
	}
	return contextTokens + n, nil
}

// WarmUp warms the counter, then the compactor, where they implement
// hooks.WarmUpper.
func (h *CompactionHook) WarmUp(ctx context.Context) error {
	if w, ok := h.counter.(hooks.WarmUpper); ok {
		if err := w.WarmUp(ctx); err != nil {
			return fmt.Errorf("compaction: warm up counter: %w", err)
		}
	}
	if w, ok := h.compactor.(hooks.WarmUpper); ok {
		if err := w.WarmUp(ctx); err != nil {
			return fmt.Errorf("compaction: warm up compactor: %w", err)
		}
	}
	return nil
}

// Close cancels the compactor calls the hook started in the background
// (prepared ones; calls abandoned by runs whose ctx ended were cancelled
// then), drops the prepared results, waits until every call returned or ctx
// ends, then closes the compactor when it implements hooks.Closer. A
// synchronous compaction a live run waits for is not cancelled: Close waits
// for it, and the run gets its result, not context.Canceled
// (TestCloseDoesNotFailLiveRuns). The counter is not closed: counters are
// usually shared and hold nothing to release. After Close the hook still
// compacts, synchronously on the caller's goroutine, and prepares nothing.
func (h *CompactionHook) Close(ctx context.Context) error {
	dropped, err := h.jobs.Close(ctx)
	for _, j := range dropped {
		h.drop(ctx, j, "the hook was closed")
	}
	if err != nil {
		return err
	}
	if c, ok := h.compactor.(hooks.Closer); ok {
		if err := c.Close(ctx); err != nil {
			return fmt.Errorf("compaction: close compactor: %w", err)
		}
	}
	return nil
}

// withCtxErr makes err wrap ctx.Err() when ctx has ended, so that a counter
// or compactor failing with an error of its own because the run was
// cancelled still reports the cancellation (errors.Is(err, context.Canceled)).
func withCtxErr(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("compaction: cancelled: %w", errors.Join(cerr, err))
	}
	return err
}

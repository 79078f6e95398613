package compaction

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"reflect"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/cost"
	"github.com/einocompact/einocompact/hooks/compaction/internal/engine"
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

// NewCompactionHook validates cfg, applies its defaults and returns the hook.
// Errors name the offending field and its value. A target
// (ContextWindow*CompactTo, or the lower one Thresholds aims for) at or below
// the floor of a compactor that implements SizeFloor is rejected too, since
// every call would compact again.
func NewCompactionHook(ctx context.Context, cfg *HookConfig) (*CompactionHook, error) {
	if cfg == nil {
		return nil, fmt.Errorf("compaction: nil HookConfig")
	}
	if err := cfg.checkRequired(); err != nil {
		return nil, err
	}
	at, to, err := cfg.fractions()
	if err != nil {
		return nil, err
	}
	if err := checkFloor(cfg.Compactor, cfg.ContextWindow, at, to); err != nil {
		return nil, err
	}
	if err := checkArchive(cfg.Archive); err != nil {
		return nil, err
	}
	prices, depth, err := cfg.bill()
	if err != nil {
		return nil, err
	}
	h := &CompactionHook{compactor: cfg.Compactor, counter: cfg.counter(), observer: cfg.Observer, archive: cfg.Archive}
	fallback, err := cfg.fallback(ctx, h.counter)
	if err != nil {
		return nil, err
	}
	ec := engine.Config{Compact: bind(cfg.Compactor, h.counter), Kind: compactorType(cfg.Compactor), Counter: h.counter,
		Window: cfg.ContextWindow, At: at, To: to, PrepareAt: cfg.PrepareAt, Log: cfg.logger(), Isolate: h.isolated,
		CacheTTL: PricesOpenAI.CacheTTL, Fallback: fallback, Prices: prices, Depth: depth, Archive: cfg.Archive}
	// The callbacks as cfg holds them now: the caller may set others in cfg
	// to build another hook (TestHookKeepsItsConfigsCallbacks).
	if onPrepared := cfg.OnPrepared; onPrepared != nil {
		ec.OnPrepared = func(ctx context.Context, d engine.Done) { onPrepared(ctx, PreparedDone(d)) }
	}
	if observer := cfg.Observer; observer != nil {
		ec.Observe = func(ctx context.Context, r *engine.Report) { observer.ObserveCompaction(ctx, reportOf(r)) }
	}
	cfg.store(&ec)
	if h.e, err = engine.New(ec); err != nil {
		return nil, err
	}
	return h, nil
}

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

// bind is c's Compact with counter bound, as the engine calls it.
func bind(c Compactor, counter TokenCounter) engine.Compact {
	return func(ctx context.Context, messages []*schema.Message, target int) ([]*schema.Message, error) {
		return c.Compact(ctx, messages, target, counter)
	}
}

// store hands cfg's Store and its settings to ec.
func (cfg *HookConfig) store(ec *engine.Config) {
	if cfg.Store == nil {
		return
	}
	ec.Store = leaseStore{cfg.Store}
	if id, ok := cfg.Compactor.(Identifier); ok {
		ec.Identity = id.CompactionIdentity()
	}
	ec.StoreScope, ec.StoreTimeout, ec.StoreCooldown, ec.StoreLease = cfg.StoreScope, cfg.StoreTimeout, cfg.StoreCooldown, cfg.StoreLease
	ec.StoreTTL, ec.StoreLiveness, ec.StoreMaxWait = cfg.StoreTTL, cfg.StoreLiveness, cfg.StoreMaxWait
}

// fallback returns the model-free fallback, measuring with the hook's
// counter, unless DisableFallback:
// tool-result pruning, which keeps every message and loses only old tool
// output, then the sliding window, which forgets whole old turns and steps.
// Neither calls a model.
func (cfg *HookConfig) fallback(ctx context.Context, counter TokenCounter) ([]engine.Stage, error) {
	if cfg.DisableFallback {
		return nil, nil
	}
	prune, err := NewToolResultPruningCompactor(ctx, nil)
	if err != nil {
		return nil, err
	}
	slide, err := NewSlidingWindowCompactor(ctx, nil)
	if err != nil {
		return nil, err
	}
	return []engine.Stage{{Name: StrategyToolResultPruning, Compact: bind(prune, counter)},
		{Name: StrategySlidingWindow, Compact: bind(slide, counter)}}, nil
}

// checkRequired checks the fields without a default: Compactor and
// ContextWindow.
func (cfg *HookConfig) checkRequired() error {
	if cfg.Compactor == nil {
		return fmt.Errorf("compaction: HookConfig.Compactor is required")
	}
	if cfg.ContextWindow < 1 {
		return fmt.Errorf("compaction: HookConfig.ContextWindow must be a positive number of tokens, got %d", cfg.ContextWindow)
	}
	return nil
}

// fractions returns CompactAt and CompactTo after their defaults, checked
// together with PrepareAt: 0 < CompactTo < PrepareAt < CompactAt <= 1, with
// PrepareAt 0 meaning off.
func (cfg *HookConfig) fractions() (at, to float64, err error) {
	at, to = cfg.CompactAt, cfg.CompactTo
	if at == 0 {
		at = 0.7
	}
	if to == 0 {
		to = 0.4
	}
	if !(0 < to && to < at && at <= 1) || math.IsNaN(at) || math.IsNaN(to) {
		return 0, 0, fmt.Errorf("compaction: HookConfig needs 0 < CompactTo < CompactAt <= 1, got CompactAt=%v CompactTo=%v", at, to)
	}
	if p := cfg.PrepareAt; p != 0 && (!(to < p && p < at) || math.IsNaN(p)) {
		return 0, 0, fmt.Errorf("compaction: HookConfig needs CompactTo < PrepareAt < CompactAt (or PrepareAt 0: off), got PrepareAt=%v CompactAt=%v CompactTo=%v", p, at, to)
	}
	return at, to, nil
}

// bill checks Prices and returns the hook's copy of them (nil when unset),
// and the prices that choose a compaction's depth: Prices, or the assumed
// PricesOpenAI when they are nil, and nil with AimAtCompactTo.
func (cfg *HookConfig) bill() (prices, depth *cost.Rates, err error) {
	if cfg.Prices != nil {
		if err := cfg.Prices.Validate(); err != nil {
			return nil, nil, fmt.Errorf("compaction: HookConfig.Prices: %w", err)
		}
		p := cost.Rates(*cfg.Prices)
		prices = &p
	}
	depth = prices
	if depth == nil {
		assumed := cost.Rates(PricesOpenAI)
		depth = &assumed
	}
	if cfg.AimAtCompactTo {
		depth = nil
	}
	return prices, depth, nil
}

// counter is TokenCounter, or the default counter when it is nil.
func (cfg *HookConfig) counter() TokenCounter {
	if cfg.TokenCounter == nil {
		return DefaultCounter()
	}
	return cfg.TokenCounter
}

// logger is Logger, or slog.Default() when it is nil.
func (cfg *HookConfig) logger() *slog.Logger {
	if cfg.Logger == nil {
		return slog.Default()
	}
	return cfg.Logger
}

// Limits are a CompactionHook's thresholds after defaults, for tools that
// draw or explain its decisions (an inspector's chart, a CLI's summary).
type Limits struct {
	ContextWindow int     // tokens
	CompactAt     float64 // fraction of ContextWindow at which compaction triggers
	CompactTo     float64 // fraction of ContextWindow compaction aims for
	PrepareAt     float64 // fraction at which a compaction is prepared in the background; 0: off
	// Ceiling is the size in tokens at or above which a triggered call waits
	// for the compaction still being prepared instead of going out
	// uncompacted (see HookConfig.PrepareAt); 0 when PrepareAt is off.
	Ceiling float64
}

// Limits returns the hook's thresholds after defaults.
func (h *CompactionHook) Limits() Limits {
	window, at, to := h.e.Window()
	l := Limits{ContextWindow: window, CompactAt: at, CompactTo: to, PrepareAt: h.e.PrepareAt}
	if h.e.PrepareAt > 0 {
		l.Ceiling = h.e.Ceiling()
	}
	return l
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

// Thresholds returns the trigger and target sizes in tokens before overhead:
// ContextWindow*CompactAt, and ContextWindow*CompactTo or, when that lies
// within 1/13 below the trigger, the largest target whose band stays below
// the trigger: a SummarizationCompactor stops within a thirteenth above its
// target, and that band must not reach the trigger.
func (h *CompactionHook) Thresholds() (trigger float64, target int) { return h.e.Thresholds() }

// SizeFloor is an optional interface of a Compactor that cannot bring a
// conversation below some size whatever the conversation holds.
// NewCompactionHook checks it: a target (ContextWindow*CompactTo) at or below
// the floor means compaction never gets under the target, the next call
// triggers again, and every model call pays for a compaction.
type SizeFloor interface {
	// MinimumTokens is the smallest target, in tokens, the compactor can plan
	// for; 0 means no floor.
	MinimumTokens() int
}

var (
	_ SizeFloor = (*SummarizationCompactor)(nil)
	_ SizeFloor = (*Pipeline)(nil)
)

// MinimumTokens implements SizeFloor: the smallest summary the compactor
// plans for before it has seen a reply, since a round only fits a target
// that leaves room for one summary of that size: ApproximateSummaryTokens
// when set; without it, the default prior of the smallest input, the
// output budget's fixed part (64 tokens, less when
// SummarizationConfig.MaxOutputTokens is below 80) plus the identifier
// ledger's block at its smallest cap (256 tokens, or
// LedgerConfig.MaxTokens), 320 tokens with the defaults.
func (c *SummarizationCompactor) MinimumTokens() int {
	return c.planner.Prior(0, 0)
}

// MinimumTokens implements SizeFloor: the lowest floor among the stages, or
// 0 when any stage reports none, since that stage may reach the target alone.
func (p *Pipeline) MinimumTokens() int {
	floor := -1
	for _, s := range p.stages {
		f, ok := s.(SizeFloor)
		if !ok {
			return 0
		}
		if n := f.MinimumTokens(); floor < 0 || n < floor {
			floor = n
		}
	}
	return max(floor, 0)
}

// checkFloor rejects a hook configuration whose target cannot clear the
// compactor's floor. The target is the one the hook aims for (Thresholds),
// which lies below ContextWindow*CompactTo when CompactTo is close to
// CompactAt: a floor between the two would leave every call compacting.
func checkFloor(c Compactor, window int, at, to float64) error {
	f, ok := c.(SizeFloor)
	if !ok {
		return nil
	}
	raw := int(float64(window) * to)
	floor, target := f.MinimumTokens(), min(raw, engine.BandBelow(float64(window)*at))
	if floor <= 0 || floor < target {
		return nil
	}
	lowered := ""
	if target < raw {
		lowered = fmt.Sprintf(", lowered to %d so that it stays below CompactAt (see CompactionHook.Thresholds),", target)
	}
	return fmt.Errorf("compaction: HookConfig.ContextWindow*CompactTo = %d*%v = %d tokens%s is not above the %d-token floor of %T "+
		"(for a SummarizationCompactor, SummarizationConfig.ApproximateSummaryTokens): every model call would compact again; "+
		"raise ContextWindow or CompactTo, or lower the floor", window, to, raw, lowered, floor, c)
}

// Package engine carries out a CompactionHook's decisions. The hook
// (package compaction, hook.go) says when a model call is compacted; the
// engine says how: it estimates the call against the thresholds, runs the
// compactor as a job on its own goroutine, prepares compactions in the
// background (PrepareAt), shares them through a Store, applies a result
// only after checking it, archives what it removed, weighs the bill and the
// room it bought, and falls back on the model-free compactors when the
// call would still be too large.
//
// The engine knows the public package's types only by their shape: a
// compactor is a function, the counter, the store and the archive are
// interfaces of the same methods, and its Report mirrors compaction.Report
// field for field (the public package copies it out, reportOf).
package engine

import (
	"context"
	"log/slog"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/cost"
	"github.com/einocompact/einocompact/hooks/compaction/internal/jobs"
	"github.com/einocompact/einocompact/hooks/compaction/internal/share"
)

// Counter is compaction.TokenCounter by its method.
type Counter interface {
	Count(ctx context.Context, messages []*schema.Message, tools []*schema.ToolInfo) (int, error)
}

// Compact is a compactor's Compact with the hook's counter bound.
type Compact func(ctx context.Context, messages []*schema.Message, targetTokens int) ([]*schema.Message, error)

// Archive is compaction.Archive by its methods.
type Archive interface {
	Put(ctx context.Context, conv string, messages []*schema.Message) (ref string, err error)
	Get(ctx context.Context, ref string) (conv string, messages []*schema.Message, err error)
}

// Store is compaction.Store by its methods, with share.Lease for
// compaction.Lease.
type Store interface {
	Lookup(ctx context.Context, conv string) ([]string, error)
	Load(ctx context.Context, key string) (entry []byte, held bool, err error)
	Claim(ctx context.Context, conv, key string, ttl time.Duration) (share.Lease, error)
	Renew(ctx context.Context, lease share.Lease, ttl time.Duration) error
	Publish(ctx context.Context, lease share.Lease, entry []byte, ttl time.Duration) error
	Wait(ctx context.Context, key string) error
}

// Stage is one model-free compactor of the fallback, with the name
// Report.Fallback gives it.
type Stage struct {
	Name    string
	Compact Compact
}

// Config is what the engine is built from: compaction.HookConfig after its
// defaults and checks (NewCompactionHook).
type Config struct {
	Compact  Compact
	Kind     string // the compactor's type name, for errors and callbacks
	Identity string // the compactor's CompactionIdentity; needed with Store
	Counter  Counter
	Window   int
	At, To   float64
	// PrepareAt is 0 for no prepared compactions.
	PrepareAt  float64
	OnPrepared func(context.Context, Done)
	// Observe hears of the calls the hook lets go out uncompacted while
	// triggered (deferred, backed off, held); Decide's caller reports the
	// others. nil: no Observer.
	Observe func(context.Context, *Report)
	Log     *slog.Logger
	// Isolate returns the ctx a compactor runs on: without the agent's
	// callback handlers.
	Isolate func(context.Context) context.Context
	// CacheTTL is the cache lifetime assumed when Prices is nil.
	CacheTTL time.Duration
	Fallback []Stage // nil: HookConfig.DisableFallback
	Archive  Archive // nil: nothing archived
	// Prices is HookConfig.Prices; nil: no pay-for-itself rule. Depth is the
	// prices that choose the depth; nil: HookConfig.AimAtCompactTo.
	Prices, Depth *cost.Rates
	// Store and its settings, as HookConfig names them; Store nil: none.
	Store                                             Store
	StoreScope                                        string
	StoreTimeout, StoreCooldown, StoreLease, StoreTTL time.Duration
	StoreLiveness, StoreMaxWait                       time.Duration
}

// Engine is a CompactionHook's machinery. Its exported fields are for the
// hook's own tests.
type Engine struct {
	compactor  Compact
	kind       string
	counter    Counter
	window     int
	at, to     float64
	onPrepared func(context.Context, Done)
	observe    func(context.Context, *Report)
	log        *slog.Logger
	isolate    func(context.Context) context.Context
	assumedTTL time.Duration
	backoff    jobs.Backoffs
	noRoom     jobs.Backoffs // conversations whose last compaction bought too little room (see room.go)
	fallback   []Stage
	sharing    *sharing // nil: no Store
	archive    Archive
	depth      *cost.Rates

	// PrepareAt is HookConfig.PrepareAt; 0: no prepared compactions.
	PrepareAt float64
	// Prices is HookConfig.Prices; nil: no pay-for-itself rule.
	Prices *cost.Rates
	// Jobs holds the compactor calls in flight and prepared results.
	Jobs *jobs.Set[*job]
	// Outputs is the summarizer's billed output per visible token, learned
	// from its rounds.
	Outputs *cost.OutputCosts
	// Now is the clock the cache's lifetime is read on.
	Now func() time.Time
}

// New returns the engine cfg describes. Its only error is a bad store
// setting.
func New(cfg Config) (*Engine, error) {
	e := &Engine{compactor: cfg.Compact, kind: cfg.Kind, counter: cfg.Counter, window: cfg.Window, at: cfg.At, to: cfg.To,
		onPrepared: cfg.OnPrepared, observe: cfg.Observe, log: cfg.Log, isolate: cfg.Isolate, assumedTTL: cfg.CacheTTL, fallback: cfg.Fallback, archive: cfg.Archive,
		depth: cfg.Depth, PrepareAt: cfg.PrepareAt, Prices: cfg.Prices, Jobs: jobs.NewSet[*job](),
		Outputs: &cost.OutputCosts{}, Now: time.Now}
	if cfg.Store != nil {
		s, err := newSharing(e, &cfg)
		if err != nil {
			return nil, err
		}
		e.sharing = s
	}
	return e, nil
}

// Counter returns the engine's counter.
func (h *Engine) Counter() Counter { return h.counter }

// Kind returns the compactor's type name.
func (h *Engine) Kind() string { return h.kind }

// Close cancels the compactor calls started in the background and drops the
// prepared results, then waits until every call returned or ctx ends (see
// CompactionHook.Close).
func (h *Engine) Close(ctx context.Context) error {
	dropped, err := h.Jobs.Close(ctx)
	for _, j := range dropped {
		h.drop(ctx, j, "the hook was closed")
	}
	return err
}

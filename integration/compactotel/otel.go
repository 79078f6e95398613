// Package compactotel records compaction as OpenTelemetry metrics.
//
// It is a separate package so that the core of einocompact does not depend on
// OpenTelemetry: only applications that import it do. Plug it into a hook
// with HookConfig.Observer (combine several observers with Observers):
//
//	obs, err := compactotel.NewObserver(meterProvider)
//	hook, err := compaction.NewCompactionHook(ctx, &compaction.HookConfig{..., Observer: obs})
//
// Instruments (all prefixed "einocompact."):
//
//	compactions          counter    triggered compactions; attribute outcome = compacted | declined | failed | backed_off | held | deferred | unprofitable | fallback
//	                                 (deferred: a prepared compaction was still being written, see HookConfig.PrepareAt)
//	                                 (unprofitable: HookConfig.Prices found the result costs more than it saves; not applied)
//	                                 (fallback: the compaction left the call near the window and a model-free one ran, see Report.Fallback)
//	                                 shared = true on a compaction applied from HookConfig.Store (Report.Shared)
//	tokens_saved         counter    tokens removed by compactions ({token})
//	cache.invalidated    counter    cached prefix tokens applied compactions made the provider drop, estimated from the previous request ({token})
//	summarizer.rounds    counter    summarizer rounds; attributes tier, ok, shape = transcript | cache_aligned
//	summarizer.latency   histogram  seconds per summarizer round; attribute tier
//	summarizer.tokens    counter    summarizer tokens; attribute direction = input | output | cached_input (cached: the part of input the provider reported read from its cache)
//	compaction.duration  histogram  seconds spent in the compactor per compaction (not for backed_off, held or deferred calls, which ran none)
package compactotel

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// Observer is a compaction.Observer that records metrics. It is safe for
// concurrent use.
type Observer struct {
	compactions, saved, rounds, sumTokens, invalidated metric.Int64Counter
	latency, duration                                  metric.Float64Histogram
}

var _ compaction.Observer = (*Observer)(nil)

// NewObserver creates the instruments on a meter named
// "github.com/einocompact/einocompact" from mp.
func NewObserver(mp metric.MeterProvider) (*Observer, error) {
	if mp == nil {
		return nil, errors.New("otel: nil MeterProvider")
	}
	m := mp.Meter("github.com/einocompact/einocompact")
	var o Observer
	var errs [7]error
	o.compactions, errs[0] = m.Int64Counter("einocompact.compactions", metric.WithDescription("Triggered compactions by outcome."))
	o.saved, errs[1] = m.Int64Counter("einocompact.tokens_saved", metric.WithUnit("{token}"), metric.WithDescription("Tokens removed from conversations by compaction."))
	o.rounds, errs[2] = m.Int64Counter("einocompact.summarizer.rounds", metric.WithDescription("Summarizer rounds by tier and success."))
	o.latency, errs[3] = m.Float64Histogram("einocompact.summarizer.latency", metric.WithUnit("s"), metric.WithDescription("Summarizer latency per round."))
	o.sumTokens, errs[4] = m.Int64Counter("einocompact.summarizer.tokens", metric.WithUnit("{token}"), metric.WithDescription("Tokens the summarizer read and wrote."))
	o.duration, errs[5] = m.Float64Histogram("einocompact.compaction.duration", metric.WithUnit("s"), metric.WithDescription("Time spent compacting, summarizer included."))
	o.invalidated, errs[6] = m.Int64Counter("einocompact.cache.invalidated", metric.WithUnit("{token}"), metric.WithDescription("Cached prefix tokens compactions made the provider drop, estimated from the previous request."))
	if err := errors.Join(errs[:]...); err != nil {
		return nil, err
	}
	return &o, nil
}

// ObserveCompaction implements compaction.Observer.
func (o *Observer) ObserveCompaction(ctx context.Context, r compaction.Report) {
	outcome := "declined"
	switch {
	case r.Deferred:
		// The compaction prepared in the background was still being
		// written: nothing declined, the call just did not wait.
		outcome = "deferred"
	case r.BackedOff:
		outcome = "backed_off"
	case r.RoomHeld:
		// The last compaction bought too little room: not repeated
		// below the ceiling.
		outcome = "held"
	case r.Unprofitable:
		outcome = "unprofitable"
	case r.Fallback != "":
		// The compaction left the call near the window and a model-free
		// one (Report.Fallback) kept it within.
		outcome = "fallback"
	case r.Err != nil:
		outcome = "failed"
	case r.Compacted:
		outcome = "compacted"
	}
	attrs := []attribute.KeyValue{attribute.String("outcome", outcome)}
	if r.Shared {
		// Written by another hook sharing the store: this one called no
		// summarizer for it.
		attrs = append(attrs, attribute.Bool("shared", true))
	}
	o.compactions.Add(ctx, 1, metric.WithAttributes(attrs...))
	if r.Deferred || r.BackedOff || r.RoomHeld {
		// No compactor ran for this call: a zero duration would only
		// drag the histogram down.
		return
	}
	if saved := r.Saved(); saved > 0 {
		o.saved.Add(ctx, int64(saved))
	}
	if r.InvalidatedTokens > 0 {
		o.invalidated.Add(ctx, int64(r.InvalidatedTokens))
	}
	o.duration.Record(ctx, r.Duration.Seconds())
	for _, rd := range r.Rounds {
		tier := attribute.String("tier", rd.Tier)
		o.rounds.Add(ctx, 1, metric.WithAttributes(tier, attribute.Bool("ok", rd.Err == nil), attribute.String("shape", rd.Shape)))
		o.latency.Record(ctx, rd.Latency.Seconds(), metric.WithAttributes(tier))
		if rd.Usage != nil {
			o.sumTokens.Add(ctx, int64(rd.Usage.PromptTokens), metric.WithAttributes(attribute.String("direction", "input")))
			o.sumTokens.Add(ctx, int64(rd.Usage.CompletionTokens), metric.WithAttributes(attribute.String("direction", "output")))
			if rd.CachedTokens > 0 {
				o.sumTokens.Add(ctx, int64(rd.CachedTokens), metric.WithAttributes(attribute.String("direction", "cached_input")))
			}
		}
	}
}

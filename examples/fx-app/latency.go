package main

import (
	"context"
	"time"

	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	compactfx "github.com/einocompact/einocompact/integration/fx"
)

// slowSummarizer makes every call of the summarizer it wraps take d longer
// (--summarizer-latency): the offline summarizer answers at once, a hosted
// model takes seconds, and prepared compaction only shows against that.
type slowSummarizer struct {
	compactfx.Summarizer
	d time.Duration
}

// Generate implements model.BaseChatModel.
func (s slowSummarizer) Generate(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	if err := sleepCtx(ctx, s.d); err != nil {
		return nil, err
	}
	return s.Summarizer.Generate(ctx, in, opts...)
}

// Stream implements model.BaseChatModel.
func (s slowSummarizer) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	if err := sleepCtx(ctx, s.d); err != nil {
		return nil, err
	}
	return s.Summarizer.Stream(ctx, in, opts...)
}

// GetType keeps the wrapped summarizer's name in reports.
func (s slowSummarizer) GetType() string {
	if t, ok := components.GetType(s.Summarizer); ok {
		return t
	}
	return "Summarizer"
}

// sleepCtx waits d, or returns ctx's error if it ends first.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// recordingSummarizer hands every request the summarizer answers, and the
// reply, to the run's reporter (found in the call's ctx, which a compaction
// prepared in the background keeps), so that the bill prices it.
type recordingSummarizer struct {
	compactfx.Summarizer
}

// Generate implements model.BaseChatModel.
func (s recordingSummarizer) Generate(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	out, err := s.Summarizer.Generate(ctx, in, opts...)
	if r := reporterFrom(ctx); r != nil && err == nil && out != nil {
		r.summarized(in, model.GetCommonOptions(nil, opts...).Tools, out)
	}
	return out, err
}

// GetType keeps the wrapped summarizer's name in reports.
func (s recordingSummarizer) GetType() string {
	if t, ok := components.GetType(s.Summarizer); ok {
		return t
	}
	return "Summarizer"
}

package compaction

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/schema"
)

func TestHookLimits(t *testing.T) {
	t.Parallel()
	comp := CompactorFunc(func(context.Context, []*schema.Message, int, TokenCounter) ([]*schema.Message, error) {
		return nil, nil
	})
	tests := []struct {
		cfg  HookConfig
		want Limits
	}{
		{HookConfig{ContextWindow: 1000}, Limits{ContextWindow: 1000, CompactAt: 0.7, CompactTo: 0.4}},
		{HookConfig{ContextWindow: 1000, CompactAt: 0.8, CompactTo: 0.3, PrepareAt: 0.6}, Limits{ContextWindow: 1000, CompactAt: 0.8, CompactTo: 0.3, PrepareAt: 0.6, Ceiling: 900}},
	}
	for _, tc := range tests {
		tc.cfg.Compactor = comp
		h, err := NewCompactionHook(context.Background(), &tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := h.Limits(); got != tc.want {
			t.Errorf("%+v: Limits() = %+v, want %+v", tc.cfg, got, tc.want)
		}
	}
}

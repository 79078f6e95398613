package compactfx

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"
	"go.uber.org/goleak"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/internal/redistest"
)

// countingSummarizer answers every call with one summary and counts them.
type countingSummarizer struct{ calls *atomic.Int32 }

func (c countingSummarizer) Generate(context.Context, []*schema.Message, ...model.Option) (*schema.Message, error) {
	c.calls.Add(1)
	return schema.AssistantMessage("The agent searched six times; every result said the same.", nil), nil
}

func (c countingSummarizer) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	m, err := c.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{m}), nil
}

// TestStoreRedisSharesBetweenApps: two applications configured with
// store.kind redis and the same Redis are two replicas: a compaction made
// by the first is applied by the second without a summarizer call, and
// stopping each app closes its client (goleak).
func TestStoreRedisSharesBetweenApps(t *testing.T) {
	srv := redistest.Start(t)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	newApp := func(calls *atomic.Int32) (*fxtest.App, *compaction.CompactionHook) {
		cfg := DefaultConfig()
		cfg.Compaction.ContextWindow = 2000
		cfg.Compaction.PrepareAt = 0
		cfg.Store.Kind, cfg.Store.Addr, cfg.Store.KeyPrefix = StoreRedis, srv.Addr(), "fxtest:"
		// The test checks who summarizes, not how fast Redis answers: at
		// the default 250ms a store call (a first dial among them) that a
		// loaded machine delays past it makes B summarize itself.
		cfg.Store.Timeout = Duration(30 * time.Second)
		var hook *compaction.CompactionHook
		app := fxtest.New(t, fx.NopLogger, Module(cfg), fx.Decorate(func(Summarizer) Summarizer { return countingSummarizer{calls} }),
			fx.Populate(&hook))
		app.RequireStart()
		return app, hook
	}
	conversation := func() []*schema.Message {
		msgs := []*schema.Message{schema.SystemMessage("rules"), schema.UserMessage("task")}
		for i := range 9 {
			id := string(rune('a' + i))
			msgs = append(msgs, schema.AssistantMessage("", []schema.ToolCall{{ID: id, Function: schema.FunctionCall{Name: "search", Arguments: "{}"}}}),
				schema.ToolMessage(strings.Repeat("result ", 90), id))
		}
		return msgs
	}
	var callsA, callsB atomic.Int32
	appA, hookA := newApp(&callsA)
	if r, err := hookA.Decide(context.Background(), &hooks.State{Messages: conversation()}); err != nil || !r.Compacted || callsA.Load() == 0 {
		t.Fatalf("A: err=%v compacted=%v summarizer calls %d; want a compaction", err, r.Compacted, callsA.Load())
	}
	appA.RequireStop() // the hook's Close waits for the publication, then the client closes
	appB, hookB := newApp(&callsB)
	r, err := hookB.Decide(context.Background(), &hooks.State{Messages: conversation()})
	if err != nil || !r.Compacted || !r.Shared || callsB.Load() != 0 {
		t.Fatalf("B: err=%v compacted=%v shared=%v summarizer calls %d; want A's compaction", err, r.Compacted, r.Shared, callsB.Load())
	}
	appB.RequireStop()
}

// TestStoreConfigValidated: the store keys are checked, each error naming
// its key.
func TestStoreConfigValidated(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		edit func(*StoreConfig)
		key  string
	}{
		{"unknown kind", func(s *StoreConfig) { s.Kind = "memcached" }, "store.kind"},
		{"redis without addr", func(s *StoreConfig) { s.Kind = StoreRedis }, "store.addr"},
		{"zero ttl", func(s *StoreConfig) { s.TTL = 0 }, "store.ttl"},
		{"negative lease", func(s *StoreConfig) { s.Lease = -1 }, "store.lease"},
		{"zero max_wait", func(s *StoreConfig) { s.MaxWait = 0 }, "store.max_wait"},
		{"max_wait above lease", func(s *StoreConfig) { s.Lease, s.MaxWait = Duration(time.Second), Duration(2*time.Second) }, "store.max_wait"},
		{"zero timeout", func(s *StoreConfig) { s.Timeout = 0 }, "store.timeout"},
		{"zero cap", func(s *StoreConfig) { s.MaxEntryBytes = 0 }, "store.max_entry_bytes"},
		{"negative db", func(s *StoreConfig) { s.DB = -1 }, "store.db"},
		{"hash tag in prefix", func(s *StoreConfig) { s.KeyPrefix = "a{b}" }, "store.key_prefix"},
	} {
		cfg := DefaultConfig()
		tc.edit(&cfg.Store)
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), tc.key) {
			t.Errorf("%s: Validate = %v, want an error naming %s", tc.name, err, tc.key)
		}
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
}

package compaction

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/einocompact/einocompact/hooks"
)

// TestSharedPreparedWaitGivesWayToOwnCompaction (issue 30 item 1): a
// prepared compaction that waits for one being written elsewhere, whose
// holder then dies (its lease is never renewed or ended), compacts itself
// in the background once the lease expires, so the trigger applies a
// prepared result instead of compacting synchronously. Before: the job
// ended empty and the trigger compacted synchronously, stalling the run.
func TestSharedPreparedWaitGivesWayToOwnCompaction(t *testing.T) {
	t.Parallel()
	store := NewMemoryStore()
	c := idCompactor{&ppCompactor{}, "pp"}
	h := stHook(t, c, store, nil)
	ctx := context.Background()
	msgs := ppConv("task-0", 4) // at PrepareAt
	conv, key, ok := h.e.StoreKeys(msgs, len(msgs))
	if !ok {
		t.Fatal("no store keys")
	}
	// A holder that dies at once: its lease lives StoreLiveness' worth
	// of a short test and is never renewed.
	if l, err := store.Claim(ctx, conv, key, 20*time.Millisecond); err != nil || !l.Held() {
		t.Fatalf("claim: %v %v", l, err)
	}
	if r, err := h.Decide(ctx, &hooks.State{Messages: msgs}); err != nil || !r.Preparing {
		t.Fatalf("at PrepareAt: preparing=%v err=%v", r.Preparing, err)
	}
	if err := h.WaitPrepared(ctx); err != nil {
		t.Fatal(err)
	}
	now := ppStep(ppStep(msgs, "task-0", 4), "task-0", 5) // at the trigger
	r, err := h.Decide(ctx, &hooks.State{Messages: now})
	if err != nil || !r.Compacted || !r.Prepared || r.Shared {
		t.Fatalf("at the trigger: err=%v compacted=%v prepared=%v shared=%v, want its own prepared compaction",
			err, r.Compacted, r.Prepared, r.Shared)
	}
	if calls := c.callsNow(); len(calls) != 1 {
		t.Fatalf("compactor calls %+v, want the one prepared in the background", calls)
	}
}

// TestStoreLivenessValidated: StoreLiveness must leave a renewal time to
// end before the lease does, and neither it nor StoreMaxWait may outlast
// StoreLease.
func TestStoreLivenessValidated(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		edit    func(*HookConfig)
		wantErr string
	}{
		{"defaults", func(*HookConfig) {}, ""},
		{"longer than StoreLease", func(c *HookConfig) { c.StoreLease, c.StoreLiveness = time.Second, 2*time.Second }, "StoreLiveness"},
		{"under twice StoreTimeout", func(c *HookConfig) { c.StoreTimeout, c.StoreLiveness = time.Second, 1500*time.Millisecond }, "StoreLiveness"},
		{"negative", func(c *HookConfig) { c.StoreLiveness = -time.Second }, "StoreLiveness"},
		{"default follows a long StoreTimeout", func(c *HookConfig) { c.StoreTimeout = 5 * time.Second }, ""},
		{"StoreLease under twice StoreTimeout", func(c *HookConfig) { c.StoreLease = 400 * time.Millisecond }, "StoreLease"},
		{"StoreMaxWait longer than StoreLease", func(c *HookConfig) { c.StoreLease, c.StoreMaxWait = 5*time.Second, 6*time.Second }, "StoreMaxWait"},
		{"StoreMaxWait negative", func(c *HookConfig) { c.StoreMaxWait = -time.Second }, "StoreMaxWait"},
		{"StoreMaxWait's default follows a short StoreLease", func(c *HookConfig) { c.StoreLease = time.Second }, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := &HookConfig{Compactor: idCompactor{&ppCompactor{}, "pp"}, ContextWindow: 1000, Store: NewMemoryStore()}
			tc.edit(cfg)
			_, err := NewCompactionHook(context.Background(), cfg)
			if tc.wantErr == "" && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("err=%v, want one naming %s", err, tc.wantErr)
			}
		})
	}
}

package compaction

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction/internal/digest"
	"github.com/einocompact/einocompact/hooks/compaction/internal/shape"
	"github.com/einocompact/einocompact/hooks/compaction/internal/share"
)

// idCompactor gives a test compactor an Identifier identity.
type idCompactor struct {
	*ppCompactor
	id string
}

func (c idCompactor) CompactionIdentity() string { return c.id }

// Compact is ppCompactor's, keeping the user's request after the system
// prompt, as the built-in compactors do and a shared result must.
func (c idCompactor) Compact(ctx context.Context, msgs []*schema.Message, target int, counter TokenCounter) ([]*schema.Message, error) {
	out, err := c.ppCompactor.Compact(ctx, msgs, target, counter)
	if out == nil || err != nil {
		return out, err
	}
	return append([]*schema.Message{out[0], msgs[1]}, out[1:]...), nil
}

// stHook is ppHook over c, sharing store, with overrides applied to its
// config.
func stHook(t *testing.T, c Compactor, store Store, edit func(*HookConfig)) *CompactionHook {
	t.Helper()
	size := func(n int) float64 { return float64(count(fc1, ppConv("task-0", n)...)) }
	window := 2 * size(6)
	cfg := &HookConfig{Compactor: c, ContextWindow: int(window), TokenCounter: fc1, Logger: discardLogger(),
		CompactAt: (size(5) + size(6)) / 2 / window, PrepareAt: (size(3) + size(4)) / 2 / window, CompactTo: size(2) / window,
		Store: store}
	if edit != nil {
		edit(cfg)
	}
	h, err := NewCompactionHook(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close(context.Background()) })
	return h
}

// copyAll copies every message, as a conversation loaded by another
// process would be.
func copyAll(msgs []*schema.Message) []*schema.Message {
	out := make([]*schema.Message, len(msgs))
	for i, m := range msgs {
		out[i] = deepCopy(m)
	}
	return out
}

// TestSharedPreparedAppliedByAnotherHook: a compaction prepared by hook A
// is applied by hook B, which shares A's store and gets the conversation as
// another process would (copies, two steps longer), without B calling its
// compactor.
func TestSharedPreparedAppliedByAnotherHook(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		prepareB bool // B reaches PrepareAt too before the trigger
	}{
		{"B at the trigger", false},
		{"B prepares first", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			store := NewMemoryStore()
			ca, cb := idCompactor{&ppCompactor{}, "pp"}, idCompactor{&ppCompactor{}, "pp"}
			a, b := stHook(t, ca, store, nil), stHook(t, cb, store, nil)
			msgs := ppPrepared(t, a)
			ctx := context.Background()
			if tc.prepareB {
				next := copyAll(ppStep(msgs, "task-0", 4))
				if _, err := b.Decide(ctx, &hooks.State{Messages: next}); err != nil {
					t.Fatal(err)
				}
				if err := b.WaitPrepared(ctx); err != nil {
					t.Fatal(err)
				}
			}
			now := copyAll(ppStep(ppStep(msgs, "task-0", 4), "task-0", 5))
			st := &hooks.State{Messages: now}
			r, err := b.Decide(ctx, st)
			if err != nil || !r.Compacted || !r.Shared {
				t.Fatalf("B: err=%v compacted=%v shared=%v, want A's compaction applied", err, r.Compacted, r.Shared)
			}
			if n := len(cb.callsNow()); n != 0 {
				t.Fatalf("B called its compactor %d times, want 0", n)
			}
			if !digest.Same(st.Messages[1], now[1]) || !HasMarkerKey(st.Messages[2]) {
				t.Fatalf("B's conversation is not A's compaction (request, summary): %v", st.Messages[1:3])
			}
			if err := shape.NewFaults(now, st.Messages); err != nil {
				t.Fatal(err)
			}
			if last := st.Messages[len(st.Messages)-1]; !digest.Same(last, now[len(now)-1]) {
				t.Fatal("the messages appended after A's snapshot were not kept")
			}
		})
	}
}

// TestSharedResultNeverAppliedElsewhere: a result published for one
// conversation is not applied to another conversation, to the same one
// rewritten, or by a hook configured otherwise; each compacts itself.
func TestSharedResultNeverAppliedElsewhere(t *testing.T) {
	t.Parallel()
	same := func(msgs []*schema.Message) []*schema.Message { return msgs }
	tests := []struct {
		name string
		id   string // B's compactor identity
		edit func(*HookConfig)
		conv func(prepared []*schema.Message) []*schema.Message
	}{
		{"another conversation", "pp", nil, func([]*schema.Message) []*schema.Message { return ppConv("task-1", 6) }},
		{"a rewritten request", "pp", nil, func(p []*schema.Message) []*schema.Message {
			out := append([]*schema.Message{p[0], user("task-0, redacted")}, p[2:]...)
			return ppStep(ppStep(out, "task-0", 4), "task-0", 5)
		}},
		{"a tool result rewritten", "pp", nil, func(p []*schema.Message) []*schema.Message {
			out := copyAll(p)
			out[3] = result("task-0-0", rep("r", 120))
			return ppStep(ppStep(out, "task-0", 4), "task-0", 5)
		}},
		{"another system prompt", "pp", nil, func(p []*schema.Message) []*schema.Message {
			out := append([]*schema.Message{sys("other rules")}, p[1:]...)
			return ppStep(ppStep(out, "task-0", 4), "task-0", 5)
		}},
		{"another compactor configuration", "pp min_keep=2", nil, func(p []*schema.Message) []*schema.Message { return ppStep(ppStep(p, "task-0", 4), "task-0", 5) }},
		{"another store scope", "pp", func(c *HookConfig) { c.StoreScope = "model-b" }, func(p []*schema.Message) []*schema.Message {
			return ppStep(ppStep(p, "task-0", 4), "task-0", 5)
		}},
		{"another target", "pp", func(c *HookConfig) { c.CompactTo *= 0.9 }, func(p []*schema.Message) []*schema.Message {
			return ppStep(ppStep(p, "task-0", 4), "task-0", 5)
		}},
		{"the same (control)", "pp", nil, func(p []*schema.Message) []*schema.Message { return same(ppStep(ppStep(p, "task-0", 4), "task-0", 5)) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			store := NewMemoryStore()
			ca, cb := idCompactor{&ppCompactor{}, "pp"}, idCompactor{&ppCompactor{}, tc.id}
			a, b := stHook(t, ca, store, nil), stHook(t, cb, store, tc.edit)
			now := copyAll(tc.conv(ppPrepared(t, a)))
			r, err := b.Decide(context.Background(), &hooks.State{Messages: now})
			control := tc.name == "the same (control)"
			if err != nil || !r.Compacted || r.Shared != control {
				t.Fatalf("B: err=%v compacted=%v shared=%v, want shared=%v", err, r.Compacted, r.Shared, control)
			}
			if calls, want := len(cb.callsNow()), map[bool]int{true: 0, false: 1}[control]; calls != want {
				t.Fatalf("B called its compactor %d times, want %d", calls, want)
			}
		})
	}
}

// TestSharedEntryChecked: whatever a store hands back under a
// conversation's key (an entry of another version, truncated, copied from
// another key, or one that drops the system prompt or the current request
// or orphans a tool result) is never applied; the hook compacts itself.
func TestSharedEntryChecked(t *testing.T) {
	t.Parallel()
	conv := ppConv("task-0", 6)
	good := func(h *CompactionHook) share.Entry {
		_, key, _ := h.e.StoreKeys(conv, len(conv))
		last := LastAssistantIndex(conv)
		return share.Entry{Key: key, Length: len(conv), Result: append([]*schema.Message{conv[0], conv[1], NewSummaryMessage("steps", last-2)}, conv[last:]...)}
	}
	tests := []struct {
		name   string
		poison func(h *CompactionHook) []byte
		apply  bool
	}{
		{"a good entry (control)", func(h *CompactionHook) []byte { b, _ := share.Encode(good(h)); return b }, true},
		{"another version", func(h *CompactionHook) []byte {
			b, _ := share.Encode(good(h))
			var m map[string]any
			_ = json.Unmarshal(b, &m)
			m["v"] = share.Version + 1
			b, _ = json.Marshal(m)
			return b
		}, false},
		{"truncated", func(h *CompactionHook) []byte { b, _ := share.Encode(good(h)); return b[:len(b)/2] }, false},
		{"copied from another key", func(h *CompactionHook) []byte {
			e := good(h)
			other := ppConv("task-1", 6)
			_, e.Key, _ = h.e.StoreKeys(other, len(other))
			b, _ := share.Encode(e)
			return b
		}, false},
		{"another length", func(h *CompactionHook) []byte { e := good(h); e.Length--; b, _ := share.Encode(e); return b }, false},
		{"system prompt dropped", func(h *CompactionHook) []byte {
			e := good(h)
			e.Result = e.Result[1:]
			b, _ := share.Encode(e)
			return b
		}, false},
		{"current request dropped", func(h *CompactionHook) []byte {
			e := good(h)
			e.Result = append([]*schema.Message{conv[0], NewSummaryMessage("everything", LastAssistantIndex(conv)-1)}, conv[LastAssistantIndex(conv):]...)
			b, _ := share.Encode(e)
			return b
		}, false},
		{"a tool result orphaned", func(h *CompactionHook) []byte {
			e := good(h)
			last := LastAssistantIndex(conv)
			e.Result = append([]*schema.Message{conv[0], conv[1], NewSummaryMessage("steps", last-1)}, conv[last+1:]...)
			b, _ := share.Encode(e)
			return b
		}, false},
		{"not smaller", func(h *CompactionHook) []byte {
			e := good(h)
			e.Result = append(copyAll(conv), user(rep("y", 200)))
			e.Result[1] = user("task-0")
			b, _ := share.Encode(e)
			return b
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			store := NewMemoryStore()
			c := idCompactor{&ppCompactor{}, "pp"}
			h := stHook(t, c, store, func(cfg *HookConfig) { cfg.PrepareAt = 0 })
			ctx := context.Background()
			convKey, key, _ := h.e.StoreKeys(conv, len(conv))
			lease, err := store.Claim(ctx, convKey, key, time.Minute)
			if err != nil || !lease.Held() {
				t.Fatalf("claim: %v %v", lease, err)
			}
			if err := store.Publish(ctx, lease, tc.poison(h), time.Minute); err != nil {
				t.Fatal(err)
			}
			st := &hooks.State{Messages: copyAll(conv)}
			r, err := h.Decide(ctx, st)
			if err != nil || !r.Compacted || r.Shared != tc.apply {
				t.Fatalf("err=%v compacted=%v shared=%v, want shared=%v", err, r.Compacted, r.Shared, tc.apply)
			}
			if calls, want := len(c.callsNow()), map[bool]int{true: 0, false: 1}[tc.apply]; calls != want {
				t.Fatalf("compactor calls %d, want %d", calls, want)
			}
			if err := shape.NewFaults(conv, st.Messages); err != nil || !digest.Same(st.Messages[0], conv[0]) {
				t.Fatalf("pairing %v, system prompt kept %v", err, digest.Same(st.Messages[0], conv[0]))
			}
		})
	}
}

// TestSharedConcurrentRunsCompactOnce: eight runs of one conversation,
// reaching the trigger at once on four hooks sharing a store, make one
// compactor call, and every run gets its result.
func TestSharedConcurrentRunsCompactOnce(t *testing.T) {
	t.Parallel()
	store := NewMemoryStore()
	c := &ppCompactor{}
	hs := make([]*CompactionHook, 4)
	for i := range hs {
		hs[i] = stHook(t, idCompactor{c, "pp"}, store, func(cfg *HookConfig) { cfg.PrepareAt = 0 })
	}
	conv := ppConv("task-0", 6)
	var wg sync.WaitGroup
	var shared atomic.Int32
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := hs[i%4].Decide(context.Background(), &hooks.State{Messages: copyAll(conv)})
			if err != nil || !r.Compacted {
				errs <- errors.Join(err, errors.New("run not compacted"))
			}
			if r.Shared {
				shared.Add(1)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if calls := len(c.callsNow()); calls != 1 || shared.Load() != 7 {
		t.Fatalf("compactor calls %d, shared results %d; want 1 and 7", calls, shared.Load())
	}
}

// failingStore fails every call, or blocks until its ctx ends (hang).
type failingStore struct {
	hang  bool
	calls atomic.Int32
}

func (s *failingStore) err(ctx context.Context) error {
	s.calls.Add(1)
	if s.hang {
		<-ctx.Done()
		return ctx.Err()
	}
	return errors.New("connection refused")
}
func (s *failingStore) Lookup(ctx context.Context, _ string) ([]string, error) {
	return nil, s.err(ctx)
}
func (s *failingStore) Load(ctx context.Context, _ string) ([]byte, bool, error) {
	return nil, false, s.err(ctx)
}
func (s *failingStore) Claim(ctx context.Context, _, _ string, _ time.Duration) (Lease, error) {
	return Lease{}, s.err(ctx)
}
func (s *failingStore) Publish(ctx context.Context, _ Lease, _ []byte, _ time.Duration) error {
	return s.err(ctx)
}
func (s *failingStore) Wait(ctx context.Context, _ string) error { return s.err(ctx) }
func (s *failingStore) Renew(ctx context.Context, _ Lease, _ time.Duration) error {
	return s.err(ctx)
}

// TestSharedStoreDownCompactsLocally: a store that fails or hangs costs a
// run at most one bounded call: the hook compacts as without it, and leaves
// the store alone for the next calls.
func TestSharedStoreDownCompactsLocally(t *testing.T) {
	t.Parallel()
	for _, hang := range []bool{false, true} {
		t.Run(map[bool]string{false: "fails", true: "hangs"}[hang], func(t *testing.T) {
			t.Parallel()
			store := &failingStore{hang: hang}
			c := idCompactor{&ppCompactor{}, "pp"}
			// The cooldown outlasts the test, so "left alone" does not
			// depend on how soon the second run follows the first (the
			// default 5 s could pass between them on a loaded machine).
			h := stHook(t, c, store, func(cfg *HookConfig) {
				cfg.PrepareAt, cfg.StoreTimeout, cfg.StoreCooldown = 0, 5*time.Millisecond, time.Hour
			})
			for i, task := range []string{"task-0", "task-1"} {
				r, err := h.Decide(context.Background(), &hooks.State{Messages: ppConv(task, 6)})
				if err != nil || !r.Compacted || r.Shared {
					t.Fatalf("run %d: err=%v compacted=%v shared=%v, want a local compaction", i, err, r.Compacted, r.Shared)
				}
			}
			if n := store.calls.Load(); n != 1 {
				t.Fatalf("store called %d times, want 1 (then left alone)", n)
			}
		})
	}
}

// TestStoreNeedsIdentifiedCompactor: a hook shares results only for a
// compactor that says what it is.
func TestStoreNeedsIdentifiedCompactor(t *testing.T) {
	t.Parallel()
	_, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: &ppCompactor{}, ContextWindow: 1000, Store: NewMemoryStore()})
	if err == nil {
		t.Fatal("a Store with a compactor without identity was accepted")
	}
	_, err = NewCompactionHook(context.Background(), &HookConfig{Compactor: idCompactor{&ppCompactor{}, "pp"}, ContextWindow: 1000,
		Store: NewMemoryStore(), StoreLease: -time.Second})
	if err == nil {
		t.Fatal("a negative StoreLease was accepted")
	}
}

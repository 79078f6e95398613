package memstore

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/einocompact/einocompact/hooks/compaction/internal/share"
)

// fakeClock is a clock a test moves by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// memHeld is what s holds: entries, leases, index lists and the keys in them.
func memHeld(s *Memory) (entries, leases, lists, keys int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.index {
		keys += len(l)
	}
	return len(s.entries), len(s.leases), len(s.index), keys
}

// TestMemoryStoreFreesExpired (issue 30 item 6): once their ttl has passed,
// a MemoryStore drops the entries, the leases never published (a holder
// that died) and the index lists and keys that name nothing any more, at
// its next call; what is still live stays. Before: everything was kept for
// good (19.3 MB of 19.2 MB published still held after the TTL).
func TestMemoryStoreFreesExpired(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{t: time.Unix(1_000_000, 0)}
	s := NewMemory()
	s.now = clock.now
	ctx := context.Background()
	const n = 600
	for i := range n {
		l, err := s.Claim(ctx, fmt.Sprintf("conv-%d", i%20), fmt.Sprintf("%d.key", i), 30*time.Second)
		if err != nil || !l.Held() {
			t.Fatalf("claim %d: %v %v", i, l, err)
		}
		if i%3 == 0 {
			continue // the holder died: its lease is never ended
		}
		if err := s.Publish(ctx, l, make([]byte, 1024), time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	if e, l, _, k := memHeld(s); e != n*2/3 || l != n/3 || k != n {
		t.Fatalf("before expiry: %d entries, %d leases, %d keys indexed; want %d, %d, %d", e, l, k, n*2/3, n/3, n)
	}
	clock.add(2 * time.Minute)
	live, err := s.Claim(ctx, "conv-live", "1.live", time.Minute)
	if err != nil || !live.Held() {
		t.Fatalf("claim after expiry: %v %v", live, err)
	}
	if err := s.Publish(ctx, live, []byte("kept"), time.Hour); err != nil {
		t.Fatal(err)
	}
	if e, l, lists, k := memHeld(s); e != 1 || l != 0 || lists != 1 || k != 1 {
		t.Fatalf("after expiry: %d entries, %d leases, %d index lists with %d keys; want only the live one (1, 0, 1, 1)", e, l, lists, k)
	}
	if raw, _, err := s.Load(ctx, "1.live"); err != nil || string(raw) != "kept" {
		t.Fatalf("live entry: %q %v", raw, err)
	}
	if keys, _ := s.Lookup(ctx, "conv-live"); len(keys) != 1 || keys[0] != "1.live" {
		t.Fatalf("live index: %v", keys)
	}
}

// TestMemoryStoreRenew: a renewal extends only the caller's live lease.
func TestMemoryStoreRenew(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{t: time.Unix(1_000_000, 0)}
	s := NewMemory()
	s.now = clock.now
	ctx := context.Background()
	l, err := s.Claim(ctx, "conv", "1.key", 3*time.Second)
	if err != nil || !l.Held() {
		t.Fatalf("claim: %v %v", l, err)
	}
	clock.add(2 * time.Second)
	if err := s.Renew(ctx, l, 3*time.Second); err != nil {
		t.Fatalf("renewing a live lease: %v", err)
	}
	clock.add(2 * time.Second) // past the first expiry, within the renewed one
	if _, held, _ := s.Load(ctx, "1.key"); !held {
		t.Fatal("the renewed lease expired at its first expiry")
	}
	if err := s.Renew(ctx, share.Lease{Key: l.Key, Token: "other"}, time.Hour); err != share.ErrLeaseLost {
		t.Fatalf("renewing with another token: %v, want share.ErrLeaseLost", err)
	}
	clock.add(2 * time.Second)
	if err := s.Renew(ctx, l, time.Hour); err != share.ErrLeaseLost {
		t.Fatalf("renewing an expired lease: %v, want share.ErrLeaseLost", err)
	}
}

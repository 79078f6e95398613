package compaction

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"maps"
	"slices"
	"sync"
	"time"
)

// MemoryStore is a Store held in one process: hooks of one process that
// serve the same conversations (several agents, several hook values) share
// compactions through it. Entries and leases expire with their ttl, and
// what expired is freed: at most once a second (memSweepEvery), a call
// drops every expired entry and lease and the index keys and lists that
// name nothing live any more, so what a MemoryStore holds is what is live
// plus at most a second's expiries (TestMemoryStoreFreesExpired). It is
// safe for concurrent use. The zero value is not usable; see NewMemoryStore.
type MemoryStore struct {
	mu        sync.Mutex
	now       func() time.Time
	entries   map[string]memEntry
	leases    map[string]memEntry // Token in data
	index     map[string][]string
	changed   chan struct{} // closed and replaced at every Publish
	nextSweep time.Time
}

type memEntry struct {
	data    []byte
	expires time.Time
}

// memIndexLen bounds the keys filed under one conversation.
const memIndexLen = 32

// memSweepEvery is how often a MemoryStore frees what expired: a sweep
// reads everything it holds once, so one a second costs a store of n
// entries O(n) a second however many calls it serves.
const memSweepEvery = time.Second

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{now: time.Now, entries: map[string]memEntry{}, leases: map[string]memEntry{},
		index: map[string][]string{}, changed: make(chan struct{})}
}

var _ Store = (*MemoryStore)(nil)

func (s *MemoryStore) live(m map[string]memEntry, key string) (memEntry, bool) {
	e, ok := m[key]
	if ok && !s.now().Before(e.expires) {
		delete(m, key)
		return memEntry{}, false
	}
	return e, ok
}

// sweep frees what expired, when memSweepEvery has passed since the last
// sweep. Called with s.mu held, by every method.
func (s *MemoryStore) sweep() {
	now := s.now()
	if now.Before(s.nextSweep) {
		return
	}
	s.nextSweep = now.Add(memSweepEvery)
	s.entries = dropExpired(s.entries, now)
	s.leases = dropExpired(s.leases, now)
	dropped := 0
	for conv, keys := range s.index {
		kept := slices.DeleteFunc(keys, func(k string) bool {
			_, entry := s.entries[k]
			_, lease := s.leases[k]
			return !entry && !lease
		})
		if len(kept) == 0 {
			delete(s.index, conv)
			dropped++
		} else {
			s.index[conv] = kept
		}
	}
	if dropped > len(s.index) {
		s.index = shrunk(s.index)
	}
}

// dropExpired deletes m's expired values. A map that lost more than it
// kept is copied, since a Go map never gives back the room it grew to.
func dropExpired(m map[string]memEntry, now time.Time) map[string]memEntry {
	before := len(m)
	maps.DeleteFunc(m, func(_ string, e memEntry) bool { return !now.Before(e.expires) })
	if before-len(m) > len(m) {
		return shrunk(m)
	}
	return m
}

// shrunk is a copy of m sized for what it holds.
func shrunk[V any](m map[string]V) map[string]V {
	out := make(map[string]V, len(m))
	maps.Copy(out, m)
	return out
}

// Lookup implements Store.
func (s *MemoryStore) Lookup(_ context.Context, conv string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweep()
	return slices.Clone(s.index[conv]), nil
}

// Load implements Store.
func (s *MemoryStore) Load(_ context.Context, key string) ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweep()
	e, ok := s.live(s.entries, key)
	_, held := s.live(s.leases, key)
	if !ok {
		return nil, held, nil
	}
	return e.data, held, nil
}

// Claim implements Store.
func (s *MemoryStore) Claim(_ context.Context, conv, key string, ttl time.Duration) (Lease, error) {
	var b [16]byte
	_, _ = rand.Read(b[:])
	token := hex.EncodeToString(b[:])
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweep()
	if _, ok := s.live(s.entries, key); ok {
		return Lease{}, nil
	}
	if _, ok := s.live(s.leases, key); ok {
		return Lease{}, nil
	}
	s.leases[key] = memEntry{data: []byte(token), expires: s.now().Add(ttl)}
	keys := slices.DeleteFunc(s.index[conv], func(k string) bool { return k == key })
	keys = append([]string{key}, keys...)
	s.index[conv] = keys[:min(len(keys), memIndexLen)]
	return Lease{Key: key, Token: token}, nil
}

// Publish implements Store.
func (s *MemoryStore) Publish(_ context.Context, l Lease, entry []byte, ttl time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweep()
	cur, ok := s.live(s.leases, l.Key)
	if !ok || string(cur.data) != l.Token {
		return ErrLeaseLost
	}
	delete(s.leases, l.Key)
	if entry != nil {
		s.entries[l.Key] = memEntry{data: slices.Clone(entry), expires: s.now().Add(ttl)}
	}
	close(s.changed)
	s.changed = make(chan struct{})
	return nil
}

// Renew implements Store.
func (s *MemoryStore) Renew(_ context.Context, l Lease, ttl time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweep()
	cur, ok := s.live(s.leases, l.Key)
	if !ok || string(cur.data) != l.Token {
		return ErrLeaseLost
	}
	cur.expires = s.now().Add(ttl)
	s.leases[l.Key] = cur
	return nil
}

// Wait implements Store. A lease that expires without a Publish is noticed
// at its expiry.
func (s *MemoryStore) Wait(ctx context.Context, key string) error {
	for {
		s.mu.Lock()
		_, ok := s.live(s.entries, key)
		lease, held := s.live(s.leases, key)
		changed := s.changed
		s.mu.Unlock()
		if ok || !held {
			return nil
		}
		t := time.NewTimer(time.Until(lease.expires))
		select {
		case <-changed:
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
		t.Stop()
	}
}

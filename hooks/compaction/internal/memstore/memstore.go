// Package memstore keeps the bookkeeping of compaction.MemoryStore: the
// entries, leases and index lists of a Store held in one process, each
// expiring with its ttl. It uses internal/share for the lease it hands out,
// and no other package of hooks/compaction.
package memstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/einocompact/einocompact/hooks/compaction/internal/share"
)

// Memory is the bookkeeping of compaction.MemoryStore, which converts its
// leases: entries, leases and index lists held in one process, each
// expiring with its ttl. What expired is freed: at most once a second
// (sweepEvery), a call drops every expired entry and lease and the index
// keys and lists that name nothing live any more, so what a Memory holds is
// what is live plus at most a second's expiries (TestMemoryStoreFreesExpired).
// It is safe for concurrent use; the zero value is not usable (NewMemory).
type Memory struct {
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

// indexLen bounds the keys filed under one conversation.
const indexLen = 32

// sweepEvery is how often a Memory frees what expired: a sweep reads
// everything it holds once, so one a second costs a store of n entries
// O(n) a second however many calls it serves.
const sweepEvery = time.Second

// NewMemory returns an empty Memory.
func NewMemory() *Memory {
	return &Memory{now: time.Now, entries: map[string]memEntry{}, leases: map[string]memEntry{},
		index: map[string][]string{}, changed: make(chan struct{})}
}

func (s *Memory) live(m map[string]memEntry, key string) (memEntry, bool) {
	e, ok := m[key]
	if ok && !s.now().Before(e.expires) {
		delete(m, key)
		return memEntry{}, false
	}
	return e, ok
}

// sweep frees what expired, when sweepEvery has passed since the last
// sweep. Called with s.mu held, by every method.
func (s *Memory) sweep() {
	now := s.now()
	if now.Before(s.nextSweep) {
		return
	}
	s.nextSweep = now.Add(sweepEvery)
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

// Lookup returns the keys filed under conv, newest first.
func (s *Memory) Lookup(_ context.Context, conv string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweep()
	return slices.Clone(s.index[conv]), nil
}

// Load returns the entry under key, or nil, and whether a lease on key is
// live.
func (s *Memory) Load(_ context.Context, key string) ([]byte, bool, error) {
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

// Claim takes the lease on key for ttl and files key under conv, at most
// indexLen keys a conv; the zero Lease when key has a live lease or entry.
func (s *Memory) Claim(_ context.Context, conv, key string, ttl time.Duration) (share.Lease, error) {
	var b [16]byte
	_, _ = rand.Read(b[:])
	token := hex.EncodeToString(b[:])
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweep()
	if _, ok := s.live(s.entries, key); ok {
		return share.Lease{}, nil
	}
	if _, ok := s.live(s.leases, key); ok {
		return share.Lease{}, nil
	}
	s.leases[key] = memEntry{data: []byte(token), expires: s.now().Add(ttl)}
	keys := slices.DeleteFunc(s.index[conv], func(k string) bool { return k == key })
	keys = append([]string{key}, keys...)
	s.index[conv] = keys[:min(len(keys), indexLen)]
	return share.Lease{Key: key, Token: token}, nil
}

// Publish stores a copy of entry (nil: none) under l's key for ttl and
// ends l, while l is the key's live lease (else share.ErrLeaseLost); it wakes
// every Wait.
func (s *Memory) Publish(_ context.Context, l share.Lease, entry []byte, ttl time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweep()
	cur, ok := s.live(s.leases, l.Key)
	if !ok || string(cur.data) != l.Token {
		return share.ErrLeaseLost
	}
	delete(s.leases, l.Key)
	if entry != nil {
		s.entries[l.Key] = memEntry{data: slices.Clone(entry), expires: s.now().Add(ttl)}
	}
	close(s.changed)
	s.changed = make(chan struct{})
	return nil
}

// Renew extends l to ttl from now, while l is the key's live lease (else
// share.ErrLeaseLost).
func (s *Memory) Renew(_ context.Context, l share.Lease, ttl time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweep()
	cur, ok := s.live(s.leases, l.Key)
	if !ok || string(cur.data) != l.Token {
		return share.ErrLeaseLost
	}
	cur.expires = s.now().Add(ttl)
	s.leases[l.Key] = cur
	return nil
}

// Wait returns once key has an entry or no live lease, or ctx ends (then
// with ctx's error). A lease that expires without a Publish is noticed at
// its expiry.
func (s *Memory) Wait(ctx context.Context, key string) error {
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

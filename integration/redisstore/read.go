package redisstore

import (
	"context"
	"fmt"
	"sync"

	goredis "github.com/redis/go-redis/v9"
)

// loadScript reads a prefix's entry and whether its lease is held, in one
// step, and sends the entry only when it is within the cap (ARGV[1] bytes,
// envelope included): an oversized value is refused by its length, so
// reading it never costs a store call's time bound. The reply is {held},
// {held, size} or {held, size, value}.
var loadScript = goredis.NewScript(`
local held = redis.call('EXISTS', KEYS[2])
if redis.call('EXISTS', KEYS[1]) == 0 then return {held} end
local n = redis.call('STRLEN', KEYS[1])
if n > tonumber(ARGV[1]) then return {held, n} end
return {held, n, redis.call('GET', KEYS[1])}`)

// stored is what loadScript found under a key.
type stored struct {
	held    bool
	present bool
	size    int64  // the value's length, envelope included
	raw     []byte // nil when the value was above the cap and not read
}

// read runs loadScript for key.
func (s *Store) read(ctx context.Context, key string) (stored, error) {
	reply, err := loadScript.Run(ctx, s.c, []string{s.entryKey(key), s.leaseKey(key)}, s.maxBytes+len(envelope)).Slice()
	if err != nil {
		return stored{}, err
	}
	var st stored
	if len(reply) == 0 {
		return stored{}, fmt.Errorf("unexpected reply %v", reply)
	}
	held, ok := reply[0].(int64)
	if !ok {
		return stored{}, fmt.Errorf("unexpected reply %v", reply)
	}
	st.held = held > 0
	if len(reply) == 1 {
		return st, nil
	}
	if st.size, ok = reply[1].(int64); !ok {
		return stored{}, fmt.Errorf("unexpected reply %v", reply)
	}
	st.present = true
	if len(reply) == 3 {
		v, ok := reply[2].(string)
		if !ok {
			return stored{}, fmt.Errorf("unexpected reply %v", reply)
		}
		st.raw = []byte(v)
	}
	return st, nil
}

// refusedMemory is how many refused keys a Store remembers, so that an
// entry it keeps being handed is logged once, not at every call.
const refusedMemory = 4096

// refusals remembers the keys whose entries were refused.
type refusals struct {
	mu   sync.Mutex
	keys map[string]struct{}
}

// first reports whether key was not refused before (as far as the bounded
// memory goes) and notes it.
func (r *refusals) first(key string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, seen := r.keys[key]; seen {
		return false
	}
	if r.keys == nil || len(r.keys) >= refusedMemory {
		r.keys = map[string]struct{}{}
	}
	r.keys[key] = struct{}{}
	return true
}

// refuse logs, once per key, that the entry under key was not loaded.
func (s *Store) refuse(ctx context.Context, key string, why error) {
	if s.refused.first(key) {
		s.log.WarnContext(ctx, "redis: stored compaction refused", "key", key, "error", why.Error())
	}
}

package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/cloudwego/eino/schema"
	goredis "github.com/redis/go-redis/v9"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// ArchiveConfig configures an Archive.
type ArchiveConfig struct {
	// Client is the Redis client. Required; its lifecycle is the caller's.
	Client goredis.UniversalClient
	// KeyPrefix namespaces every key. Default "einocompact:"; must not
	// contain '{' or '}'.
	KeyPrefix string
	// TTL is how long an entry is kept. Default
	// compaction.DefaultArchiveTTL; must not be negative.
	TTL time.Duration
	// MaxBytes bounds the bytes of archived entries (entry ids and encoded
	// messages; Redis' own overhead per key is not counted). Past it, whole
	// conversations are evicted, the least recently written first, and a
	// conversation alone above it keeps its newest entries. Default
	// compaction.DefaultArchiveMaxBytes; must not be negative.
	MaxBytes int64
	// Key signs references (compaction.NewArchiveRefs; at least
	// compaction.MinArchiveKeyBytes). Default nil: a random key is made in
	// Redis by the first replica that needs one (SET NX, no TTL) and read
	// by the others, so the fleet agrees on it.
	Key []byte
	// Seal and Open, when set (both or neither), authenticate or encrypt
	// every stored entry as Config.Seal and Config.Open do the store's
	// (NewHMAC: use a namespace of its own, ArchiveNamespace). An entry
	// Open refuses, or one sealed for another conversation or entry id, is
	// not returned. Default none: anyone who can write to Redis can choose
	// what recall returns.
	Seal func(plain []byte) ([]byte, error)
	Open func(sealed []byte) ([]byte, error)
}

// Archive is a compaction.Archive in Redis, shared by every replica using
// the same server and KeyPrefix, with FileArchive's semantics: entries are
// filed by conversation, live TTL, and stay within MaxBytes with the least
// recently written conversations evicted first; references are signed, so
// forged, guessed or altered ones are refused.
//
// Keys, all under one Cluster hash tag ("{arc}") because the script that
// writes an entry also evicts others: per conversation, a hash of its
// entries and a sorted set of their order (both expiring TTL after the
// conversation's last write); an index of conversations by last write, their
// sizes and the total (expiring TTL after any write); and the signing key
// (no TTL). A write is one script, atomic on the server, so concurrent
// writers never see a partial entry nor miscount the total.
type Archive struct {
	c        goredis.UniversalClient
	base     string // KeyPrefix + "{arc}:"
	ttl      time.Duration
	maxBytes int64
	now      func() time.Time

	seal func([]byte) ([]byte, error) // nil: entries stored as they are
	open func([]byte) ([]byte, error)

	mu   sync.Mutex
	refs *compaction.ArchiveRefs
}

var _ compaction.Archive = (*Archive)(nil)

// NewArchive validates cfg and returns the Archive. It does not reach
// Redis: the signing key is read on first use.
func NewArchive(cfg ArchiveConfig) (*Archive, error) {
	if cfg.Client == nil {
		return nil, errors.New("redis: ArchiveConfig.Client is required")
	}
	prefix := cfg.KeyPrefix
	if prefix == "" {
		prefix = DefaultKeyPrefix
	}
	if strings.ContainsAny(prefix, "{}") {
		return nil, fmt.Errorf("redis: ArchiveConfig.KeyPrefix must not contain '{' or '}', got %q", prefix)
	}
	if cfg.TTL < 0 {
		return nil, fmt.Errorf("redis: ArchiveConfig.TTL must be positive (or 0: default %v), got %v", compaction.DefaultArchiveTTL, cfg.TTL)
	}
	if cfg.MaxBytes < 0 {
		return nil, fmt.Errorf("redis: ArchiveConfig.MaxBytes must be positive (or 0: default %d), got %d", compaction.DefaultArchiveMaxBytes, cfg.MaxBytes)
	}
	if (cfg.Seal == nil) != (cfg.Open == nil) {
		return nil, errors.New("redis: ArchiveConfig.Seal and ArchiveConfig.Open must be set together")
	}
	a := &Archive{c: cfg.Client, base: prefix + "{arc}:", ttl: cfg.TTL, maxBytes: cfg.MaxBytes, now: time.Now,
		seal: cfg.Seal, open: cfg.Open}
	if a.ttl == 0 {
		a.ttl = compaction.DefaultArchiveTTL
	}
	if a.maxBytes == 0 {
		a.maxBytes = compaction.DefaultArchiveMaxBytes
	}
	if cfg.Key != nil {
		refs, err := compaction.NewArchiveRefs(cfg.Key)
		if err != nil {
			return nil, fmt.Errorf("redis: ArchiveConfig.Key: %w", err)
		}
		a.refs = &refs
	}
	return a, nil
}

// signer returns the references' signer, reading (or making) the shared key
// in Redis the first time; a failure is tried again on the next call.
func (a *Archive) signer(ctx context.Context) (*compaction.ArchiveRefs, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.refs != nil {
		return a.refs, nil
	}
	key := a.base + "key"
	fresh := make([]byte, 32)
	rand.Read(fresh)
	if err := a.c.SetNX(ctx, key, hex.EncodeToString(fresh), 0).Err(); err != nil {
		return nil, fmt.Errorf("redis: archive key: %w", err)
	}
	raw, err := a.c.Get(ctx, key).Result()
	if err != nil {
		return nil, fmt.Errorf("redis: archive key: %w", err)
	}
	k, err := hex.DecodeString(raw)
	if err != nil {
		return nil, fmt.Errorf("redis: archive key %q is malformed", key)
	}
	refs, err := compaction.NewArchiveRefs(k)
	if err != nil {
		return nil, fmt.Errorf("redis: archive key %q: %w", key, err)
	}
	a.refs = &refs
	return a.refs, nil
}

// archiveEnvelope starts every entry: a value without it (another
// version, another program's data) is never decoded.
var archiveEnvelope = []byte("einocompact-archive/1\n")

// archiveRecord is one entry as stored. Conv and Entry name where it was
// written, so that a sealed entry copied under another conversation or
// entry id is refused (archive_auth.go); entries written before they
// existed have neither.
type archiveRecord struct {
	At       int64             `json:"t"` // UnixNano
	Conv     string            `json:"c,omitempty"`
	Entry    string            `json:"e,omitempty"`
	Messages []*schema.Message `json:"m"`
}

func (a *Archive) dataKey(conv string) string  { return a.base + conv }
func (a *Archive) orderKey(conv string) string { return a.base + conv + ":order" }

// Put implements compaction.Archive.
func (a *Archive) Put(ctx context.Context, conv string, messages []*schema.Message) (string, error) {
	refs, err := a.signer(ctx)
	if err != nil {
		return "", fmt.Errorf("compaction: archiving: %w", err)
	}
	ref, entry, err := refs.Issue(conv)
	if err != nil {
		return "", err
	}
	now := a.now()
	value, err := a.encode(archiveRecord{At: now.UnixNano(), Conv: conv, Entry: entry, Messages: messages})
	if err != nil {
		return "", fmt.Errorf("compaction: archiving: %w", err)
	}
	if size := int64(len(entry) + len(value)); size > a.maxBytes {
		return "", fmt.Errorf("compaction: archiving: the entry (%d bytes) is larger than the archive's MaxBytes (%d)", size, a.maxBytes)
	}
	keys := []string{a.dataKey(conv), a.orderKey(conv), a.base + "index", a.base + "sizes", a.base + "total", a.base + "seq"}
	err = archivePut.Run(ctx, a.c, keys, entry, value, now.UnixMilli(), a.ttl.Milliseconds(), a.maxBytes, conv, a.base).Err()
	if err != nil {
		return "", fmt.Errorf("compaction: archiving: %w", err)
	}
	return ref, nil
}

// Get implements compaction.Archive.
func (a *Archive) Get(ctx context.Context, ref string) (string, []*schema.Message, error) {
	refs, err := a.signer(ctx)
	if err != nil {
		return "", nil, fmt.Errorf("compaction: recalling: %w", err)
	}
	conv, entry, err := refs.Check(ref)
	if err != nil {
		return "", nil, err
	}
	raw, err := a.c.HGet(ctx, a.dataKey(conv), entry).Bytes()
	if errors.Is(err, goredis.Nil) {
		return "", nil, fmt.Errorf("%w: reference %q", compaction.ErrArchiveNotFound, ref)
	}
	if err != nil {
		return "", nil, fmt.Errorf("compaction: recalling %q: %w", ref, err)
	}
	rec, err := a.decode(raw, conv, entry)
	if err != nil {
		return "", nil, fmt.Errorf("%w: reference %q: %w", compaction.ErrArchiveNotFound, ref, err)
	}
	if a.now().Sub(time.Unix(0, rec.At)) > a.ttl {
		return "", nil, fmt.Errorf("%w: reference %q", compaction.ErrArchiveNotFound, ref)
	}
	return conv, rec.Messages, nil
}

// archivePut stores one entry and keeps the archive within its cap.
// KEYS: the conversation's entries (hash) and order (sorted set), the index
// of conversations by last write (sorted set), their sizes (hash), the
// total and the order's sequence. A conversation whose keys expired is
// counted afresh. ARGV: entry id, value, now (ms), TTL
// (ms), MaxBytes, conversation, key base. Conversations whose keys expired
// leave the index and the total first; then, while the total is above the
// cap, the least recently written other conversation is deleted, and then
// the current one's oldest entries but the new one.
var archivePut = goredis.NewScript(`
local data, order, index, sizes, totalKey, seqKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local entry, value, conv, base = ARGV[1], ARGV[2], ARGV[6], ARGV[7]
local now, ttl, max = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local size = string.len(entry) + string.len(value)
local total = tonumber(redis.call('GET', totalKey) or '0')
if redis.call('EXISTS', data) == 0 then
  total = total - tonumber(redis.call('HGET', sizes, conv) or '0')
  redis.call('HDEL', sizes, conv)
end
total = total + size
redis.call('HSET', data, entry, value)
redis.call('ZADD', order, redis.call('INCR', seqKey), entry)
redis.call('PEXPIRE', data, ttl)
redis.call('PEXPIRE', order, ttl)
redis.call('ZADD', index, now, conv)
redis.call('HINCRBY', sizes, conv, size)
local function drop(c)
  total = total - tonumber(redis.call('HGET', sizes, c) or '0')
  redis.call('HDEL', sizes, c)
  redis.call('ZREM', index, c)
  redis.call('DEL', base .. c, base .. c .. ':order')
end
for _, c in ipairs(redis.call('ZRANGEBYSCORE', index, '-inf', '(' .. (now - ttl))) do
  if c ~= conv then drop(c) end
end
while total > max do
  local oldest = redis.call('ZRANGE', index, 0, 1)
  local victim = oldest[1]
  if victim == conv then victim = oldest[2] end
  if victim == nil then break end
  drop(victim)
end
while total > max do
  local e = redis.call('ZRANGE', order, 0, 0)[1]
  if e == nil or e == entry then break end
  local v = redis.call('HGET', data, e)
  local n = string.len(e) + (v and string.len(v) or 0)
  redis.call('HDEL', data, e)
  redis.call('ZREM', order, e)
  redis.call('HINCRBY', sizes, conv, -n)
  total = total - n
end
redis.call('SET', totalKey, total, 'PX', ttl)
redis.call('PEXPIRE', index, ttl)
redis.call('PEXPIRE', sizes, ttl)
redis.call('PEXPIRE', seqKey, ttl)
return total
`)

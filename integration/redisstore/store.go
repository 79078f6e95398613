// Package redisstore shares compactions between the replicas of a service
// through Redis: a compaction.Store on github.com/redis/go-redis/v9's
// UniversalClient, so a single node, Sentinel and Cluster all work.
//
// What is stored, under Config.KeyPrefix: for each conversation prefix being
// compacted, a lease (a random token, SET NX PX, expiring after the hook's
// StoreLiveness unless its holder renews it); for each one compacted, the hook's encoded result (the
// summary and the messages it keeps, which are conversation content),
// expiring after the hook's StoreTTL; and for each conversation, a list of
// the prefixes filed under it, expiring after Config.IndexTTL. Nothing else:
// no credentials, no configuration. Every key has a TTL.
//
// Archive (NewArchive) is a compaction.Archive in Redis, so that the recall
// tool reads on any replica what a compaction removed on another. Its keys
// (under "{arc}:") expire with its TTL but one: the key that signs its
// references, unless ArchiveConfig.Key supplies it.
//
// Failure: every call is bounded by the ctx the hook gives it (the client
// must honour ctx deadlines; NewClient sets ContextTimeoutEnabled), and the
// hook compacts locally while Redis is slow or down. The client reconnects
// by itself.
package redisstore

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// Config configures a Store.
type Config struct {
	// Client is the Redis client. Required. Its lifecycle is the caller's
	// (Close is not called by the Store). It should honour ctx deadlines
	// (go-redis' ContextTimeoutEnabled), or a hung server stalls a call up
	// to the client's own read timeout.
	Client goredis.UniversalClient
	// KeyPrefix namespaces every key. Default "einocompact:"; must not
	// contain '{' or '}' (used for Cluster hash tags).
	KeyPrefix string
	// MaxEntryBytes caps a stored result: a larger one is not stored (its
	// lease ends, and the other replicas compact themselves), and a larger
	// one found is refused by its length, without being read. Default 4 MiB.
	MaxEntryBytes int
	// PollInterval is how often a replica waiting for a compaction written
	// elsewhere checks for it. Default 50ms.
	PollInterval time.Duration
	// IndexTTL is how long the list of prefixes filed under a conversation
	// is kept after its last claim. Default 10 minutes.
	IndexTTL time.Duration
	// Seal and Open, when set (both or neither), encrypt what is stored and
	// decrypt what is loaded, e.g. with AES-GCM and a key from your secret
	// store: results are conversation content. Or they authenticate it
	// (NewHMAC). An entry Open refuses is not loaded. Default none: anyone
	// who can write to Redis can choose what the replicas apply.
	Seal func(plain []byte) ([]byte, error)
	Open func(sealed []byte) ([]byte, error)
	// Logger receives a Warn record for each entry refused, once per key
	// (of the last 4096 refused). Default slog.Default().
	Logger *slog.Logger
}

// Store is a compaction.Store in Redis. It is safe for concurrent use.
type Store struct {
	c        goredis.UniversalClient
	prefix   string
	maxBytes int
	poll     time.Duration
	indexTTL time.Duration
	seal     func([]byte) ([]byte, error)
	open     func([]byte) ([]byte, error)
	log      *slog.Logger
	refused  refusals
}

var _ compaction.Store = (*Store)(nil)

// envelope starts every stored value: the version of this package's
// encoding. A value that does not start with it (another version, another
// program's data, a truncated write) is never loaded.
var envelope = []byte("einocompact-redis/1\n")

// Defaults of Config.
const (
	DefaultKeyPrefix     = "einocompact:"
	DefaultMaxEntryBytes = 4 << 20
	DefaultPollInterval  = 50 * time.Millisecond
	DefaultIndexTTL      = 10 * time.Minute
	indexLen             = 32
)

// New validates cfg and returns the Store.
func New(cfg Config) (*Store, error) {
	if cfg.Client == nil {
		return nil, errors.New("redis: Config.Client is required")
	}
	s := &Store{c: cfg.Client, prefix: cfg.KeyPrefix, maxBytes: cfg.MaxEntryBytes, poll: cfg.PollInterval,
		indexTTL: cfg.IndexTTL, seal: cfg.Seal, open: cfg.Open, log: cfg.Logger}
	if s.prefix == "" {
		s.prefix = DefaultKeyPrefix
	}
	if bytes.ContainsAny([]byte(s.prefix), "{}") {
		return nil, fmt.Errorf("redis: Config.KeyPrefix must not contain '{' or '}', got %q", s.prefix)
	}
	if s.maxBytes == 0 {
		s.maxBytes = DefaultMaxEntryBytes
	}
	if s.maxBytes < 0 {
		return nil, fmt.Errorf("redis: Config.MaxEntryBytes must be positive (or 0: default), got %d", s.maxBytes)
	}
	if s.poll == 0 {
		s.poll = DefaultPollInterval
	}
	if s.poll < 0 {
		return nil, fmt.Errorf("redis: Config.PollInterval must be positive (or 0: default), got %v", s.poll)
	}
	if s.indexTTL == 0 {
		s.indexTTL = DefaultIndexTTL
	}
	if s.indexTTL < 0 {
		return nil, fmt.Errorf("redis: Config.IndexTTL must be positive (or 0: default), got %v", s.indexTTL)
	}
	if (s.seal == nil) != (s.open == nil) {
		return nil, errors.New("redis: Config.Seal and Config.Open must be set together")
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	return s, nil
}

// Keys: a prefix's lease and entry share a Cluster hash tag, so the
// scripts that touch both run on one node.
func (s *Store) leaseKey(key string) string  { return s.prefix + "{" + key + "}:lease" }
func (s *Store) entryKey(key string) string  { return s.prefix + "{" + key + "}:entry" }
func (s *Store) indexKey(conv string) string { return s.prefix + "conv:" + conv }

// Lookup implements compaction.Store.
func (s *Store) Lookup(ctx context.Context, conv string) ([]string, error) {
	keys, err := s.c.LRange(ctx, s.indexKey(conv), 0, indexLen-1).Result()
	if err != nil {
		return nil, fmt.Errorf("redis: lookup: %w", err)
	}
	return keys, nil
}

// Load implements compaction.Store.
func (s *Store) Load(ctx context.Context, key string) ([]byte, bool, error) {
	st, err := s.read(ctx, key)
	if err != nil {
		return nil, false, fmt.Errorf("redis: load: %w", err)
	}
	if !st.present {
		return nil, st.held, nil
	}
	if st.raw == nil {
		s.refuse(ctx, key, fmt.Errorf("%d bytes, above MaxEntryBytes %d", st.size-int64(len(envelope)), s.maxBytes))
		return nil, st.held, nil
	}
	plain, err := s.unwrap(st.raw)
	if err != nil {
		s.refuse(ctx, key, err)
		return nil, st.held, nil
	}
	return plain, st.held, nil
}

func (s *Store) unwrap(raw []byte) ([]byte, error) {
	if len(raw) > s.maxBytes+len(envelope) {
		return nil, fmt.Errorf("%d bytes, above MaxEntryBytes %d", len(raw), s.maxBytes)
	}
	body, ok := bytes.CutPrefix(raw, envelope)
	if !ok {
		return nil, errors.New("unknown encoding version")
	}
	if s.open == nil {
		return body, nil
	}
	plain, err := s.open(body)
	if err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	return plain, nil
}

// claimScript takes the lease (SET NX PX) unless an entry exists already.
var claimScript = goredis.NewScript(`
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
return 0`)

// Claim implements compaction.Store.
func (s *Store) Claim(ctx context.Context, conv, key string, ttl time.Duration) (compaction.Lease, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return compaction.Lease{}, fmt.Errorf("redis: claim: %w", err)
	}
	token := hex.EncodeToString(b[:])
	got, err := claimScript.Run(ctx, s.c, []string{s.leaseKey(key), s.entryKey(key)}, token, ttl.Milliseconds()).Int()
	if err != nil {
		return compaction.Lease{}, fmt.Errorf("redis: claim: %w", err)
	}
	if got != 1 {
		return compaction.Lease{}, nil
	}
	// The index lives in another slot; file the key there after the claim.
	idx := s.indexKey(conv)
	_, err = s.c.Pipelined(ctx, func(p goredis.Pipeliner) error {
		p.LRem(ctx, idx, 0, key)
		p.LPush(ctx, idx, key)
		p.LTrim(ctx, idx, 0, indexLen-1)
		p.PExpire(ctx, idx, max(s.indexTTL, ttl))
		return nil
	})
	if err != nil {
		return compaction.Lease{Key: key, Token: token}, fmt.Errorf("redis: claim: filing the key: %w", err)
	}
	return compaction.Lease{Key: key, Token: token}, nil
}

// publishScript is the fencing check: only the lease's holder, while the
// lease is its own, ends it and stores the entry.
var publishScript = goredis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
if ARGV[3] == '1' then redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[4]) end
return 1`)

// Publish implements compaction.Store. An entry above MaxEntryBytes (after
// Seal) is not stored; the lease ends as for a nil entry.
func (s *Store) Publish(ctx context.Context, l compaction.Lease, entry []byte, ttl time.Duration) error {
	store := "0"
	var value []byte
	if entry != nil {
		body := entry
		if s.seal != nil {
			var err error
			if body, err = s.seal(entry); err != nil {
				return fmt.Errorf("redis: publish: seal: %w", err)
			}
		}
		if len(body) <= s.maxBytes {
			store, value = "1", append(append(make([]byte, 0, len(envelope)+len(body)), envelope...), body...)
		} else {
			s.log.WarnContext(ctx, "redis: compaction not shared: above MaxEntryBytes", "bytes", len(body), "max", s.maxBytes)
		}
	}
	got, err := publishScript.Run(ctx, s.c, []string{s.leaseKey(l.Key), s.entryKey(l.Key)}, l.Token, value, store, ttl.Milliseconds()).Int()
	if err != nil {
		return fmt.Errorf("redis: publish: %w", err)
	}
	if got != 1 {
		return compaction.ErrLeaseLost
	}
	return nil
}

// renewScript extends the lease only while it holds the caller's token.
var renewScript = goredis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`)

// Renew implements compaction.Store.
func (s *Store) Renew(ctx context.Context, l compaction.Lease, ttl time.Duration) error {
	got, err := renewScript.Run(ctx, s.c, []string{s.leaseKey(l.Key)}, l.Token, ttl.Milliseconds()).Int()
	if err != nil {
		return fmt.Errorf("redis: renew: %w", err)
	}
	if got != 1 {
		return compaction.ErrLeaseLost
	}
	return nil
}

// Wait implements compaction.Store by polling every PollInterval.
func (s *Store) Wait(ctx context.Context, key string) error {
	t := time.NewTicker(s.poll)
	defer t.Stop()
	for {
		var entry, lease *goredis.IntCmd
		_, err := s.c.Pipelined(ctx, func(p goredis.Pipeliner) error {
			entry = p.Exists(ctx, s.entryKey(key))
			lease = p.Exists(ctx, s.leaseKey(key))
			return nil
		})
		if err != nil {
			return fmt.Errorf("redis: wait: %w", err)
		}
		if entry.Val() > 0 || lease.Val() == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

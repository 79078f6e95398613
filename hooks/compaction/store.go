package compaction

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/einocompact/einocompact/hooks/compaction/internal/memstore"
	"github.com/einocompact/einocompact/hooks/compaction/internal/share"
)

// Store shares compactions between hooks: the replicas of a service behind a
// load balancer, or several hooks in one process. Through it a hook
// publishes the result of a compaction, finds one published for the
// conversation it is about to send, and claims a conversation prefix while
// it compacts it, so that across every hook sharing the store one prefix is
// summarized once. HookConfig.Store; nil (the default) keeps everything in
// the hook's process, as without a store.
//
// A Store moves opaque entries; the hook encodes them (a versioned
// encoding) and checks every entry it loads against the conversation it is
// about to send (the key it was written for, tool calls paired, the system
// prompt and the current request kept, smaller), so a store can withhold
// an entry but never make the hook apply one that does not fit. These
// checks cannot tell who wrote an entry: whoever can write to the store
// can forge one that fits, with a summary of their choosing. A store
// shared beyond the hooks' own processes must therefore authenticate what
// it returns (package integration/redisstore: Config.Seal and Config.Open with
// NewHMAC) and return nothing it cannot authenticate. Keys are printable
// ASCII without spaces. Every method must return within the
// deadline of its ctx; the hook bounds each call and, when the store errs
// or is slow, goes on as without one. Implementations must be safe for
// concurrent use. See NewMemoryStore, and package integration/redisstore for one
// shared between processes.
type Store interface {
	// Lookup returns the keys filed under conv (by Claim), newest first.
	// An unknown conv returns none.
	Lookup(ctx context.Context, conv string) ([]string, error)
	// Load returns the entry published under key, or nil; held reports
	// that a lease on key is live (someone is compacting that prefix).
	Load(ctx context.Context, key string) (entry []byte, held bool, err error)
	// Claim takes the lease on key for ttl and files key under conv. The
	// zero Lease with a nil error means another holder has it, or an entry
	// is published under key already. A held Lease may come with an error
	// (the lease was taken, filing it failed): the hook then ends it.
	Claim(ctx context.Context, conv, key string, ttl time.Duration) (Lease, error)
	// Renew extends the lease to ttl from now, only while it is still the
	// caller's (else ErrLeaseLost). The hook renews its leases while its
	// compactor runs, so that a lease outlives its holder by at most one
	// ttl (HookConfig.StoreLiveness).
	Renew(ctx context.Context, lease Lease, ttl time.Duration) error
	// Publish stores entry under the lease's key, with ttl, and ends the
	// lease, only while the lease is still the key's (fencing: a holder
	// whose lease expired, and maybe went to another, writes nothing and
	// gets ErrLeaseLost). A nil entry only ends the lease. Waiters (Wait)
	// are told either way.
	Publish(ctx context.Context, lease Lease, entry []byte, ttl time.Duration) error
	// Wait returns once key has an entry or no live lease, or ctx ends
	// (then with ctx's error).
	Wait(ctx context.Context, key string) error
}

// Lease is the right to publish under Key, proved by Token; the zero Lease
// holds nothing.
type Lease struct {
	Key   string
	Token string
}

// Held reports whether l holds a lease.
func (l Lease) Held() bool { return l.Token != "" }

// ErrLeaseLost is returned by Store.Publish and Store.Renew when the lease
// expired and the key's lease or entry is no longer the caller's.
var ErrLeaseLost = share.ErrLeaseLost

// Identifier is implemented by compactors whose results a Store may share:
// CompactionIdentity names the compactor and every setting that shapes its
// result, so that hooks share only results their own compactor could have
// written. SummarizationCompactor, SlidingWindowCompactor,
// ToolResultPruningCompactor and Pipeline implement it. A hook with a Store
// requires it of its compactor (NewCompactionHook).
type Identifier interface {
	CompactionIdentity() string
}

// The identities of the built-in compactors (Identifier, each beside its
// compactor): their type, a version of what their output means, and every
// setting that shapes it.
// Long texts (an instruction, a placeholder) enter as their SHA-256, so an
// identity stays short. The summarizer's model enters as its component
// type; which model of that provider writes the summaries is not visible
// here, so hooks whose summarizers differ only in the model name must say
// so in HookConfig.StoreScope. A function setting
// (MaxCompletionTokensOption) enters as set or not, extractors as their
// types. TestSummarizationIdentityCoversEveryField
// and TestModelFreeIdentitiesCoverEveryField fail for a config field that
// is neither here nor exempt with a reason (a logger, an observer).

func textID(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:8])
}

// MemoryStore is a Store held in one process: hooks of one process that
// serve the same conversations (several agents, several hook values) share
// compactions through it. Entries and leases expire with their ttl, and
// what expired is freed: at most once a second, a call drops every expired
// entry and lease and the index keys and lists that name nothing live any
// more, so what a MemoryStore holds is what is live plus at most a second's
// expiries. It is safe for concurrent use. The zero value is not usable;
// see NewMemoryStore.
type MemoryStore struct {
	m *memstore.Memory
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore { return &MemoryStore{m: memstore.NewMemory()} }

var _ Store = (*MemoryStore)(nil)

// Lookup implements Store.
func (s *MemoryStore) Lookup(ctx context.Context, conv string) ([]string, error) {
	return s.m.Lookup(ctx, conv)
}

// Load implements Store.
func (s *MemoryStore) Load(ctx context.Context, key string) ([]byte, bool, error) {
	return s.m.Load(ctx, key)
}

// Claim implements Store.
func (s *MemoryStore) Claim(ctx context.Context, conv, key string, ttl time.Duration) (Lease, error) {
	l, err := s.m.Claim(ctx, conv, key, ttl)
	return Lease(l), err
}

// Publish implements Store.
func (s *MemoryStore) Publish(ctx context.Context, l Lease, entry []byte, ttl time.Duration) error {
	return s.m.Publish(ctx, share.Lease(l), entry, ttl)
}

// Renew implements Store.
func (s *MemoryStore) Renew(ctx context.Context, l Lease, ttl time.Duration) error {
	return s.m.Renew(ctx, share.Lease(l), ttl)
}

// Wait implements Store. A lease that expires without a Publish is noticed
// at its expiry.
func (s *MemoryStore) Wait(ctx context.Context, key string) error { return s.m.Wait(ctx, key) }

// leaseStore is a Store as the engine calls it, with share.Lease for Lease.
type leaseStore struct{ s Store }

func (l leaseStore) Lookup(ctx context.Context, conv string) ([]string, error) {
	return l.s.Lookup(ctx, conv)
}

func (l leaseStore) Load(ctx context.Context, key string) ([]byte, bool, error) {
	return l.s.Load(ctx, key)
}

func (l leaseStore) Claim(ctx context.Context, conv, key string, ttl time.Duration) (share.Lease, error) {
	lease, err := l.s.Claim(ctx, conv, key, ttl)
	return share.Lease(lease), err
}

func (l leaseStore) Renew(ctx context.Context, lease share.Lease, ttl time.Duration) error {
	return l.s.Renew(ctx, Lease(lease), ttl)
}

func (l leaseStore) Publish(ctx context.Context, lease share.Lease, entry []byte, ttl time.Duration) error {
	return l.s.Publish(ctx, Lease(lease), entry, ttl)
}

func (l leaseStore) Wait(ctx context.Context, key string) error { return l.s.Wait(ctx, key) }

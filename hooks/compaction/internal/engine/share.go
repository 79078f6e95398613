package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction/internal/digest"
	"github.com/einocompact/einocompact/hooks/compaction/internal/jobs"
	"github.com/einocompact/einocompact/hooks/compaction/internal/request"
	"github.com/einocompact/einocompact/hooks/compaction/internal/share"
)

// Sharing compactions through a Store (HookConfig.Store). Before the hook
// compacts a conversation, in the background at PrepareAt or at the
// trigger, it asks the store for a compaction of a prefix of it:
//
//   - one published: it is applied as a prepared result would be, after the
//     checks of share.Decode (version, key, tool-call pairing, system
//     messages and current request kept) and, when applied, the hook's own
//     count (smaller);
//   - one being written (a live lease): the hook waits for it, at most
//     HookConfig.StoreMaxWait, in the background like a prepared compaction
//     (a call at the trigger defers, as it would for its own), or at the
//     trigger like a synchronous one; when nothing arrives it compacts
//     itself;
//   - none: it claims the conversation as it stands (a lease), compacts it,
//     and publishes the result, or ends the lease when there is none.
//
// A lease lives StoreLiveness (3 s) unless renewed. Its holder renews it
// every third of that while the compactor runs (at most StoreLease in
// all), and ends it, token-fenced, on every path: the job published or
// failed, the hook was closed or had no room for the job before it
// started, filing the claim failed. A failed end is retried on a fresh
// bounded ctx. A holder that dies, hangs or loses its link stops renewing,
// so another hook waits for it at most StoreLiveness and then compacts
// itself (issue 30 item 1). A holder whose summarizer is slow or hangs in a
// live process keeps renewing: the waiting hook gives up after
// StoreMaxWait (4 s) all the same and compacts itself. The holder's later
// publish is harmless: it goes in under its own lease (fenced by its
// token) as an entry other hooks check before they apply it, and the
// waiting hook, having compacted its conversation, no longer names that
// prefix.
//
// Results are keyed by the scoped prefix digest of the messages they
// replace (storeKeys): the conversation, to the last message, by content,
// together with the compactor's identity and settings, HookConfig.StoreScope,
// the hook's window and fractions and the counter's type. Another
// conversation, a rewritten one, or a hook configured otherwise computes
// another key, and a value under a key it does not name is refused.
//
// The store is an optimisation, never a dependency: every call to it is
// bounded by StoreTimeout, and a failure or timeout leaves the store alone
// for StoreCooldown, during which the hook compacts as without one. It is
// tried again after that, so sharing resumes once the store is back.

// Defaults of HookConfig's store settings.
const (
	defaultStoreCooldown = 5 * time.Second
	defaultStoreTimeout  = 250 * time.Millisecond
	defaultStoreLease    = 2 * time.Minute
	defaultStoreLiveness = 3 * time.Second
	defaultStoreMaxWait  = 4 * time.Second
	defaultStoreTTL      = jobs.DefaultMaxAge
)

// newSharing validates cfg's store settings for h.
func newSharing(h *Engine, cfg *Config) (*sharing, error) {
	if cfg.Identity == "" {
		return nil, fmt.Errorf("compaction: HookConfig.Store needs a compactor that implements Identifier, got %s", cfg.Kind)
	}
	s := &sharing{store: cfg.Store, timeout: defaultStoreTimeout, cooldown: defaultStoreCooldown, lease: defaultStoreLease, ttl: defaultStoreTTL}
	for _, d := range []struct {
		name string
		v    time.Duration
		to   *time.Duration
	}{{"StoreTimeout", cfg.StoreTimeout, &s.timeout}, {"StoreCooldown", cfg.StoreCooldown, &s.cooldown},
		{"StoreLease", cfg.StoreLease, &s.lease}, {"StoreTTL", cfg.StoreTTL, &s.ttl},
		{"StoreLiveness", cfg.StoreLiveness, &s.liveness}, {"StoreMaxWait", cfg.StoreMaxWait, &s.maxWait}} {
		if d.v < 0 {
			return nil, fmt.Errorf("compaction: HookConfig.%s must be positive (or 0: default), got %v", d.name, d.v)
		}
		if d.v > 0 {
			*d.to = d.v
		}
	}
	if cfg.StoreLiveness == 0 {
		s.liveness = min(max(defaultStoreLiveness, 4*s.timeout), s.lease)
	}
	if s.liveness > s.lease {
		return nil, fmt.Errorf("compaction: HookConfig.StoreLiveness must be at most StoreLease (%v), got %v", s.lease, s.liveness)
	}
	if s.liveness < 2*s.timeout {
		if cfg.StoreLiveness == 0 {
			// The default was cut to StoreLease: that is what to change.
			return nil, fmt.Errorf("compaction: HookConfig.StoreLease must be at least twice StoreTimeout (%v), got %v", s.timeout, s.lease)
		}
		return nil, fmt.Errorf("compaction: HookConfig.StoreLiveness must be at least twice StoreTimeout (%v), got %v", s.timeout, s.liveness)
	}
	if cfg.StoreMaxWait == 0 {
		s.maxWait = min(defaultStoreMaxWait, s.lease)
	}
	if s.maxWait > s.lease {
		return nil, fmt.Errorf("compaction: HookConfig.StoreMaxWait must be at most StoreLease (%v), got %v", s.lease, s.maxWait)
	}
	s.scope = h.storeScopeOf(cfg.Identity, cfg.StoreScope)
	return s, nil
}

// sharing is a hook's Store with its settings.
type sharing struct {
	store    Store
	scope    digest.Sum
	timeout  time.Duration
	cooldown time.Duration
	lease    time.Duration // the longest a claim is held, renewals included
	liveness time.Duration // a claim's life without renewal
	maxWait  time.Duration // the longest a job waits for another's claim
	ttl      time.Duration
	// downUntil is when the store may be tried again after a failure, in
	// UnixNano; 0: up.
	downUntil atomic.Int64
}

// timing is the lease timing of s's settings.
func (s *sharing) timing() leaseTiming {
	return leaseTiming{Timeout: s.timeout, Liveness: s.liveness, Lease: s.lease}
}

func (s *sharing) up() bool {
	d := s.downUntil.Load()
	return d == 0 || time.Now().UnixNano() >= d
}

// storeScopeOf is the digest of everything besides the conversation that a
// shared result depends on: the compactor's identity, HookConfig.StoreScope,
// the hook's window and fractions, and the counter's type.
func (h *Engine) storeScopeOf(identity, scope string) digest.Sum {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\x00compactor=%s\x00scope=%s\x00window=%d\x00at=%v\x00to=%v\x00counter=%T",
		digest.Version, identity, scope, h.window, h.at, h.to, h.counter)
	// The prices that choose the depth change what a compaction keeps.
	if h.depth != nil {
		fmt.Fprintf(&b, "\x00depth=%v/%v/%v", h.depth.CachedInput, h.depth.CacheWrite, h.depth.Output)
	}
	return sha256.Sum256([]byte(b.String()))
}

// StoreKeys returns the keys of messages[:n] in the store: conv, the index
// list the prefix is filed under (convKey of its longest anchor), and key,
// naming this prefix (its length and scoped prefix digest). ok is false
// when the conversation has no message but system ones, or n ends before
// its first other message.
func (h *Engine) StoreKeys(messages []*schema.Message, n int) (conv, key string, ok bool) {
	anchors := share.Anchors(messages, n)
	if len(anchors) == 0 {
		return "", "", false
	}
	return h.convKey(messages[:anchors[0]]), h.prefixKey(messages[:n]), true
}
func (h *Engine) convKey(head []*schema.Message) string {
	d := digest.Prefix(head)
	sum := sha256.Sum256(append(append([]byte("conv\x00"), h.sharing.scope[:]...), d[:]...))
	return "c." + hex.EncodeToString(sum[:])
}
func (h *Engine) prefixKey(prefix []*schema.Message) string {
	d := digest.Prefix(prefix)
	sum := sha256.Sum256(append(append([]byte("prefix\x00"), h.sharing.scope[:]...), d[:]...))
	return strconv.Itoa(len(prefix)) + "." + hex.EncodeToString(sum[:])
}

// failed notes a failed or slow store call.
func (h *Engine) storeFailed(ctx context.Context, op string, err error) {
	s := h.sharing
	if ctx.Err() != nil {
		return // the run ended, not the store
	}
	s.downUntil.Store(time.Now().Add(s.cooldown).UnixNano())
	h.log.WarnContext(ctx, "compaction store unavailable; compacting locally for a while", "op", op,
		"error", err.Error(), "retry_after", s.cooldown)
}

// storeCtx bounds one store call.
func (h *Engine) storeCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, h.sharing.timeout)
}

// sharedFound is what the store holds for a conversation.
type sharedFound struct {
	n      int               // the prefix length it covers
	result []*schema.Message // published and checked; nil: none
	held   string            // a key being compacted elsewhere, when no result
}

// sharedFind asks the store for the longest prefix of messages with a
// published compaction, else one being compacted. It reads the index
// lists of messages' anchors (share.Anchors), longest first, and stops at
// the first list that gives a published result: the lists after it hold
// shorter prefixes only.
func (h *Engine) sharedFind(ctx context.Context, messages []*schema.Message) (f sharedFound, ok bool) {
	anchors := share.Anchors(messages, len(messages))
	if len(anchors) == 0 || !h.sharing.up() {
		return f, false
	}
	sctx, cancel := h.storeCtx(ctx)
	defer cancel()
	heldN := 0
	for _, anchor := range anchors {
		keys, err := h.sharing.store.Lookup(sctx, h.convKey(messages[:anchor]))
		if err != nil {
			h.storeFailed(ctx, "lookup", err)
			return sharedFound{}, false
		}
		for _, key := range keys {
			n, ok := share.KeyLength(key)
			if !ok || n > len(messages) || n <= f.n || h.prefixKey(messages[:n]) != key {
				continue
			}
			raw, held, err := h.sharing.store.Load(sctx, key)
			if err != nil {
				h.storeFailed(ctx, "load", err)
				return sharedFound{}, false
			}
			if raw == nil {
				if held && n > heldN {
					f.held, heldN = key, n
				}
				continue
			}
			result, err := share.Decode(raw, key, messages[:n])
			if err != nil {
				h.log.WarnContext(ctx, "compaction store: entry refused", "error", err.Error())
				continue
			}
			f.n, f.result = n, result
		}
		if f.result != nil {
			break
		}
	}
	if f.result == nil && f.held != "" {
		f.n = heldN
	}
	return f, true
}

// share decides, for the fresh job j over messages, between a result the
// store has (j then returns it), one being written elsewhere (j waits for
// it) and a claim of its own (j compacts and publishes). A store that is
// down or unknown leaves j as it is. count measures a shorter snapshot.
func (h *Engine) share(ctx context.Context, j *job, messages []*schema.Message) {
	if h.sharing == nil {
		return
	}
	f, ok := h.sharedFind(ctx, messages)
	if !ok {
		return
	}
	if f.result != nil || f.held != "" {
		h.shorten(ctx, j, messages[:f.n])
		j.shared, j.remote, j.preset = true, f.held, f.result
		return
	}
	conv, key, ok := h.StoreKeys(messages, len(messages))
	if !ok {
		return
	}
	sctx, cancel := h.storeCtx(ctx)
	defer cancel()
	lease, err := h.sharing.store.Claim(sctx, conv, key, h.sharing.liveness)
	if err != nil {
		if lease.Held() {
			// Taken but not filed: end it, or the others would wait for
			// a compaction nobody writes.
			h.endLease(ctx, lease, nil)
		}
		h.storeFailed(ctx, "claim", err)
		return
	}
	if !lease.Held() {
		// Claimed or published by another between Lookup and Claim.
		j.shared, j.remote = true, key
		return
	}
	j.lease = lease
}

// shorten makes snapshot, a prefix of j's, j's snapshot.
func (h *Engine) shorten(ctx context.Context, j *job, snapshot []*schema.Message) {
	if len(snapshot) == len(j.Snapshot) {
		return
	}
	j.Snapshot = slices.Clone(snapshot)
	if n, err := h.counter.Count(ctx, j.Snapshot, nil); err == nil {
		j.tokens = n
	}
}

// errNotShared is the outcome of a job that waited for a compaction being
// written elsewhere and got none.
var errNotShared = errors.New("compaction: the compaction being written elsewhere did not arrive")

// awaitShared is the work of a job that takes its result from the store:
// the result found already, or the one published under j.remote within
// StoreMaxWait, however long its holder renews its lease.
func (h *Engine) awaitShared(j *job) ([]*schema.Message, error) {
	if j.preset != nil {
		return j.preset, nil
	}
	wctx, cancel := context.WithTimeout(j.ctx, h.sharing.maxWait)
	defer cancel()
	if err := h.sharing.store.Wait(wctx, j.remote); err != nil {
		if j.ctx.Err() == nil && !errors.Is(err, context.DeadlineExceeded) {
			h.storeFailed(j.values, "wait", err)
		}
		return nil, fmt.Errorf("%w: %w", errNotShared, err)
	}
	sctx, cancel2 := h.storeCtx(j.ctx)
	defer cancel2()
	raw, _, err := h.sharing.store.Load(sctx, j.remote)
	if err != nil {
		h.storeFailed(j.values, "load", err)
		return nil, fmt.Errorf("%w: %w", errNotShared, err)
	}
	if raw == nil {
		return nil, errNotShared
	}
	result, err := share.Decode(raw, j.remote, j.Snapshot)
	if err != nil {
		h.log.WarnContext(j.values, "compaction store: entry refused", "error", err.Error())
		return nil, fmt.Errorf("%w: %w", errNotShared, err)
	}
	return result, nil
}

// publishShared ends the lease of the finished job j: it publishes j's
// result when it is one every hook may apply (share.Decode's checks and
// smaller by the counter), and ends the lease without an entry otherwise.
func (h *Engine) publishShared(j *job) {
	if !j.lease.Held() {
		return
	}
	if j.unhold != nil {
		// Renewed while the lease is being ended, so that tries spread
		// over a blip of the link do not find it expired.
		defer j.unhold()
	}
	var entry []byte
	if j.err == nil && j.result != nil && !j.refused && share.Check(j.Snapshot, j.result) == nil {
		var err error
		if entry, err = share.Encode(share.Entry{Key: j.lease.Key, Length: len(j.Snapshot), Result: j.result, Step: j.step}); err != nil {
			h.log.WarnContext(j.values, "compaction store: result not encodable; not shared", "error", err.Error())
			entry = nil
		}
	}
	h.endLease(j.values, j.lease, entry)
}

// endLease publishes entry under l, or with a nil entry ends l, trying
// again for StoreLiveness at most (leaseTiming.End). A lease that is no
// longer l's (expired, maybe taken by another) ends the tries.
func (h *Engine) endLease(values context.Context, l share.Lease, entry []byte) {
	values = context.WithoutCancel(values)
	tries, err := h.sharing.timing().End(values, func(ctx context.Context) error {
		return h.sharing.store.Publish(ctx, l, entry, h.sharing.ttl)
	})
	switch {
	case err == nil:
	case errors.Is(err, share.ErrLeaseLost):
		// After a failed try, the lost lease may be that try's own
		// success whose answer did not arrive.
		if tries == 1 {
			h.log.WarnContext(values, "compaction store: lease expired before the compaction finished; its result was not shared",
				"key", l.Key, "liveness", h.sharing.liveness)
		}
	default:
		h.storeFailed(values, "publish", err)
	}
}

// holdLease renews j's lease every third of StoreLiveness until stop is
// called or StoreLease has passed since the job started (leaseTiming.Hold;
// waiters stop at StoreMaxWait); stop returns once no renewal runs.
func (h *Engine) holdLease(j *job) (stop func()) {
	if !j.lease.Held() {
		return func() {}
	}
	return h.sharing.timing().Hold(j.values, j.Started, func(ctx context.Context) error {
		return h.sharing.store.Renew(ctx, j.lease, h.sharing.liveness)
	}, func(err error) { h.storeFailed(j.values, "renew", err) })
}

// compactShared is compactNow through the store: a compaction of state's
// conversation found there, awaited from another hook, or claimed and
// compacted here and published. done is false with a nil error when the
// caller must compact as without a store: the store is down, or what it
// gave was not usable (not smaller, or the conversation was rewritten
// meanwhile).
func (h *Engine) compactShared(ctx context.Context, state *hooks.State, r *Report) (done bool, err error) {
	messages := slices.Clone(state.Messages) // a snapshot, as in compactNow
	j := h.newJob(request.WithTools(ctx, state.Tools), messages, r.TokensAfter, r.Target, r)
	h.share(ctx, j, messages)
	if !j.shared && !j.lease.Held() {
		j.cancel()
		return false, nil
	}
	compacted, err := h.compact(ctx, j, r)
	if err != nil || (compacted == nil && !j.shared) {
		return true, err
	}
	if compacted == nil {
		return false, nil
	}
	// Set before apply, whose "compaction applied" record reports it.
	r.Shared = j.shared
	if err := h.apply(ctx, state, j.Snapshot, compacted, j.tokens, j.resultTokens, r); err != nil {
		r.Shared = false
		return true, withCtxErr(ctx, err)
	}
	if !r.Compacted {
		r.Shared = false
		return !j.shared, nil
	}
	if trigger, _ := h.Thresholds(); j.shared && float64(r.TokensAfter+r.Overhead) >= trigger {
		// What the conversation gained since the shared prefix keeps it at
		// the trigger: the caller compacts the rest.
		return false, nil
	}
	return true, nil
}

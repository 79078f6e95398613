package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"
	goredis "github.com/redis/go-redis/v9"

	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/internal/redistest"
)

// arcKey is a conversation key as the hook files one.
func arcKey(t *testing.T, first string) string {
	t.Helper()
	k, ok := compaction.ArchiveConversation([]*schema.Message{schema.SystemMessage("rules"), schema.UserMessage(first)})
	if !ok {
		t.Fatal("no conversation key")
	}
	return k
}

func newArchive(t *testing.T, c goredis.UniversalClient, cfg ArchiveConfig) *Archive {
	t.Helper()
	cfg.Client = c
	a, err := NewArchive(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func arcPut(t *testing.T, a *Archive, key string, msgs ...*schema.Message) string {
	t.Helper()
	ref, err := a.Put(context.Background(), key, msgs)
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

// storedBytes sums what the archive under base holds: the entry ids and
// values of every conversation's hash, read back from Redis.
func storedBytes(t *testing.T, c goredis.UniversalClient, base string) int64 {
	t.Helper()
	ctx := context.Background()
	var n int64
	iter := c.Scan(ctx, 0, base+"cv*", 100).Iterator()
	for iter.Next(ctx) {
		if strings.HasSuffix(iter.Val(), ":order") {
			continue
		}
		for k, v := range c.HGetAll(ctx, iter.Val()).Val() {
			n += int64(len(k) + len(v))
		}
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRedisArchiveSharedByReplicas: an entry written through one replica's
// archive reads back whole through another's (separate clients, the key
// made in Redis by the first and read by the second).
func TestRedisArchiveSharedByReplicas(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	one := newArchive(t, client(t, srv), ArchiveConfig{})
	two := newArchive(t, client(t, srv), ArchiveConfig{})
	key := arcKey(t, "start")
	in := []*schema.Message{schema.UserMessage("run it"), schema.ToolMessage("exact output\nline two \"quoted\"", "c1")}
	ref := arcPut(t, one, key, in...)
	gotKey, got, err := two.Get(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	if gotKey != key || compaction.PrefixDigest(got) != compaction.PrefixDigest(in) {
		t.Fatalf("read back %q %v, want %q %v", gotKey, got, key, in)
	}
}

// TestRedisArchiveRefusesForgedReferences: a reference altered in any part,
// or issued by an archive with another key, is refused as not issued.
func TestRedisArchiveRefusesForgedReferences(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := client(t, srv)
	a := newArchive(t, c, ArchiveConfig{})
	other := newArchive(t, c, ArchiveConfig{KeyPrefix: "other:", Key: []byte(strings.Repeat("k", 32))})
	key := arcKey(t, "start")
	ref := arcPut(t, a, key, schema.UserMessage("secret"))
	foreign := arcPut(t, other, key, schema.UserMessage("secret"))
	flip := func(s string, i int) string {
		b := []byte(s)
		if b[i] == '0' {
			b[i] = '1'
		} else {
			b[i] = '0'
		}
		return string(b)
	}
	for name, bad := range map[string]string{
		"signature altered":           flip(ref, len(ref)-1),
		"entry altered":               flip(ref, len(ref)-26),
		"conversation swapped":        strings.Replace(ref, key, arcKey(t, "another"), 1),
		"another archive's reference": foreign,
		"empty":                       "",
		"garbage":                     "please show me everything",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if _, _, err := a.Get(context.Background(), bad); !errors.Is(err, compaction.ErrArchiveReference) {
				t.Fatalf("Get(%q) = %v, want ErrArchiveReference", bad, err)
			}
		})
	}
}

// TestRedisArchiveTTL: an entry past its TTL is not found and one within it
// is; the conversation's keys carry the TTL, so Redis drops them.
func TestRedisArchiveTTL(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := client(t, srv)
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := newArchive(t, c, ArchiveConfig{TTL: time.Hour})
	a.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); defer mu.Unlock(); now = now.Add(d) }
	key := arcKey(t, "start")
	old := arcPut(t, a, key, schema.UserMessage("old"))
	advance(59 * time.Minute)
	young := arcPut(t, a, key, schema.UserMessage("young"))
	advance(2 * time.Minute)
	if _, _, err := a.Get(context.Background(), old); !errors.Is(err, compaction.ErrArchiveNotFound) {
		t.Fatalf("entry past its TTL: %v, want ErrArchiveNotFound", err)
	}
	if _, got, err := a.Get(context.Background(), young); err != nil || got[0].Content != "young" {
		t.Fatalf("entry within its TTL: %v, %v", got, err)
	}
	for _, k := range []string{a.dataKey(key), a.orderKey(key)} {
		if ttl := c.PTTL(context.Background(), k).Val(); ttl <= 0 || ttl > time.Hour {
			t.Fatalf("key %s has TTL %v, want within (0, 1h]", k, ttl)
		}
	}
}

// TestRedisArchiveSizeCap: what the archive holds stays within the cap,
// the oldest conversations go first, a conversation alone above the cap
// keeps its newest entries, and an entry larger than the cap is refused.
func TestRedisArchiveSizeCap(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := client(t, srv)
	const max = 32 << 10
	a := newArchive(t, c, ArchiveConfig{MaxBytes: max})
	body := strings.Repeat("x", 1000)
	var refs []string
	for i := range 200 {
		refs = append(refs, arcPut(t, a, arcKey(t, fmt.Sprint("conv ", i)), schema.ToolMessage(body, "c1")))
		if n := storedBytes(t, c, a.base); n > max {
			t.Fatalf("after %d conversations the archive holds %d bytes, cap %d", i+1, n, max)
		}
	}
	if _, _, err := a.Get(context.Background(), refs[0]); !errors.Is(err, compaction.ErrArchiveNotFound) {
		t.Fatalf("oldest conversation: %v, want evicted", err)
	}
	if _, _, err := a.Get(context.Background(), refs[len(refs)-1]); err != nil {
		t.Fatalf("newest conversation: %v", err)
	}
	one := arcKey(t, "one long conversation")
	var last string
	for range 200 {
		last = arcPut(t, a, one, schema.ToolMessage(body, "c1"))
	}
	if n := storedBytes(t, c, a.base); n > max {
		t.Fatalf("one conversation: the archive holds %d bytes, cap %d", n, max)
	}
	if _, _, err := a.Get(context.Background(), last); err != nil {
		t.Fatalf("newest entry of a trimmed conversation: %v", err)
	}
	if _, err := a.Put(context.Background(), one, []*schema.Message{schema.UserMessage(strings.Repeat("y", max))}); err == nil || !strings.Contains(err.Error(), "MaxBytes") {
		t.Fatalf("an entry larger than the cap: %v", err)
	}
}

// TestRedisArchiveConcurrentWriters: replicas (one client each) write one
// conversation and many others at once under a cap; every entry the cap
// keeps reads back whole, the newest of the shared conversation among
// them, and the archive's running total equals what Redis holds.
func TestRedisArchiveConcurrentWriters(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	const writers, each, max = 4, 25, 64 << 10
	archives := make([]*Archive, writers)
	for w := range writers {
		archives[w] = newArchive(t, client(t, srv), ArchiveConfig{MaxBytes: max})
	}
	shared := arcKey(t, "shared")
	refs := make([][]string, writers)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				key := shared
				if i%2 == 1 {
					key = arcKey(t, fmt.Sprintf("writer %d conversation %d", w, i))
				}
				ref, err := archives[w].Put(context.Background(), key, []*schema.Message{schema.ToolMessage(fmt.Sprintf("writer %d entry %d %s", w, i, strings.Repeat("z", 1500)), "c1")})
				if err != nil {
					t.Error(err)
					return
				}
				refs[w] = append(refs[w], ref)
			}
		})
	}
	wg.Wait()
	c := client(t, srv)
	reader := newArchive(t, c, ArchiveConfig{MaxBytes: max})
	kept := 0
	for w := range writers {
		for i, ref := range refs[w] {
			_, got, err := reader.Get(context.Background(), ref)
			if errors.Is(err, compaction.ErrArchiveNotFound) {
				continue
			}
			if err != nil {
				t.Fatalf("writer %d entry %d: %v", w, i, err)
			}
			if want := fmt.Sprintf("writer %d entry %d ", w, i); !strings.HasPrefix(got[0].Content, want) {
				t.Fatalf("writer %d entry %d reads %.40q", w, i, got[0].Content)
			}
			kept++
		}
	}
	held := storedBytes(t, c, reader.base)
	total, err := c.Get(context.Background(), reader.base+"total").Int64()
	if err != nil {
		t.Fatal(err)
	}
	if kept == 0 || held > max || total != held {
		t.Fatalf("%d entries kept, %d bytes held, total counted %d, cap %d", kept, held, total, max)
	}
}

// TestRedisArchiveUndecodableEntry: an entry overwritten with bytes that
// do not decode (another program's, a partial value) is reported not
// found, and the conversation's other entries still read.
func TestRedisArchiveUndecodableEntry(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := client(t, srv)
	a := newArchive(t, c, ArchiveConfig{})
	key := arcKey(t, "start")
	first := arcPut(t, a, key, schema.UserMessage("first"))
	torn := arcPut(t, a, key, schema.UserMessage(strings.Repeat("torn ", 200)))
	_, entry, err := a.refs.Check(torn)
	if err != nil {
		t.Fatal(err)
	}
	whole := c.HGet(context.Background(), a.dataKey(key), entry).Val()
	if err := c.HSet(context.Background(), a.dataKey(key), entry, whole[:len(whole)/2]).Err(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := a.Get(context.Background(), torn); !errors.Is(err, compaction.ErrArchiveNotFound) {
		t.Fatalf("undecodable entry: %v, want ErrArchiveNotFound", err)
	}
	if _, got, err := a.Get(context.Background(), first); err != nil || got[0].Content != "first" {
		t.Fatalf("the entry before it: %v %v", got, err)
	}
}

func TestRedisArchiveRejectsBadConfig(t *testing.T) {
	t.Parallel()
	c := goredis.NewClient(&goredis.Options{Addr: "127.0.0.1:1"})
	t.Cleanup(func() { _ = c.Close() })
	for name, tc := range map[string]struct {
		cfg  ArchiveConfig
		want string
	}{
		"no client":        {ArchiveConfig{}, "Client"},
		"braces":           {ArchiveConfig{Client: c, KeyPrefix: "a{b"}, "a{b"},
		"negative ttl":     {ArchiveConfig{Client: c, TTL: -time.Second}, "-1s"},
		"negative cap":     {ArchiveConfig{Client: c, MaxBytes: -5}, "-5"},
		"short key":        {ArchiveConfig{Client: c, Key: []byte("short")}, "5 bytes"},
		"bad conversation": {ArchiveConfig{Client: c, Key: []byte(strings.Repeat("k", 32))}, ""},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a, err := NewArchive(tc.cfg)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if _, err := a.Put(context.Background(), "not-a-key", nil); err == nil || !strings.Contains(err.Error(), "not-a-key") {
					t.Fatalf("Put with a bad conversation: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("NewArchive = %v, want an error naming %q", err, tc.want)
			}
		})
	}
}

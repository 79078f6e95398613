package compactfx

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
	goredis "github.com/redis/go-redis/v9"
	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/integration/redisstore"
	"github.com/einocompact/einocompact/internal/redistest"
)

// TestModuleArchiveRedisSharesStoreClientAndAuth: with store.kind redis
// and compaction.archive.kind redis, the archive uses the store's client,
// and with store.auth_key_env its entries are stored sealed with that key
// (HMAC under redisstore.ArchiveNamespace), so one rewritten in Redis is
// refused. With store.kind none the archive has a client of its own.
func TestModuleArchiveRedisSharesStoreClientAndAuth(t *testing.T) {
	srv := redistest.Start(t)
	const key = "a-test-key-of-forty-bytes-0123456789abcd"
	t.Setenv(authKeyVar, key)
	ctx := context.Background()
	for _, tc := range []struct {
		storeKind string
		shared    bool
	}{{StoreRedis, true}, {StoreNone, false}} {
		cfg := DefaultConfig()
		cfg.Compaction.Archive.Kind = ArchiveRedis
		cfg.Store.Kind, cfg.Store.Addr, cfg.Store.KeyPrefix = tc.storeKind, srv.Addr(), "fxarcauth"+tc.storeKind+":"
		cfg.Store.AuthKeyEnv = authKeyVar
		var arc moduleArchive
		var store moduleStore
		app := fxtest.New(t, fx.NopLogger, Module(cfg), fx.Populate(&arc, &store))
		app.RequireStart()
		if got := arc.client != nil && arc.client == store.client; got != tc.shared {
			t.Fatalf("store.kind %s: the archive shares the store's client: %v, want %v", tc.storeKind, got, tc.shared)
		}
		conv, _ := compaction.ArchiveConversation([]*schema.Message{schema.SystemMessage("rules"), schema.UserMessage("task")})
		ref, err := arc.Put(ctx, conv, []*schema.Message{schema.ToolMessage("exact output", "c1")})
		if err != nil {
			t.Fatal(err)
		}
		admin := goredis.NewClient(&goredis.Options{Addr: srv.Addr()})
		dataKey := cfg.Store.KeyPrefix + "{arc}:" + conv
		fields := admin.HGetAll(ctx, dataKey).Val()
		if len(fields) != 1 {
			t.Fatalf("store.kind %s: %s holds %d entries, want 1", tc.storeKind, dataKey, len(fields))
		}
		h, err := redisstore.NewHMAC([]byte(key), redisstore.ArchiveNamespace(cfg.Store.KeyPrefix))
		if err != nil {
			t.Fatal(err)
		}
		for entry, value := range fields {
			plain, err := h.Open([]byte(value))
			if err != nil || !bytes.Contains(plain, []byte("exact output")) {
				t.Fatalf("store.kind %s: the entry is not sealed with store.auth_key_env's key: %v", tc.storeKind, err)
			}
			tag := value[:sha256.Size]
			if err := admin.HSet(ctx, dataKey, entry, tag+strings.Replace(string(plain), "exact output", "forged output", 1)).Err(); err != nil {
				t.Fatal(err)
			}
		}
		if _, got, err := arc.Get(ctx, ref); !errors.Is(err, compaction.ErrArchiveNotFound) {
			t.Fatalf("store.kind %s: a rewritten entry reads %v, %v; want refused", tc.storeKind, got, err)
		}
		admin.Close()
		app.RequireStop()
	}
}

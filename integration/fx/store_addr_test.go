package compactfx

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"testing"

	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// TestStoreAddrMustBeHostPort: store.addr takes host:port only. A Redis
// URL or a connection string carrying a password is refused, from the
// file or from EINOCOMPACT_REDIS_ADDR, the error naming the key (and the
// variable) and never the password; before, it was accepted, sharing was
// off for good (every dial failed) and the password was logged at every
// start.
func TestStoreAddrMustBeHostPort(t *testing.T) {
	t.Parallel()
	const secret = "s3cr3t-Passw0rd"
	for _, tc := range []struct {
		addr string
		ok   bool
	}{
		{"redis:6379", true},
		{"10.0.0.7:6380", true},
		{"[::1]:6379", true},
		{"cache.internal.example:6379", true},
		{"redis://default:" + secret + "@redis:6379/0", false},
		{"rediss://:" + secret + "@redis:6380", false},
		{"redis://redis:6379?password=" + secret, false},
		{"default:" + secret + "@redis:6379", false},
		{"redis:6379,password=" + secret + ",ssl=True", false},
		{"redis", false},
		{"redis:port", false},
		{"redis:70000", false},
		{":6379", false},
	} {
		cfg := DefaultConfig()
		cfg.Store.Kind, cfg.Store.Addr = StoreRedis, tc.addr
		err := cfg.Validate()
		if tc.ok {
			if err != nil {
				t.Errorf("%q: %v", tc.addr, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "store.addr") {
			t.Errorf("%q: Validate = %v, want an error naming store.addr", tc.addr, err)
			continue
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("%q: the error holds the password: %v", tc.addr, err)
		}
		cfg = DefaultConfig()
		cfg.Store.Kind = StoreRedis
		err = LoadInto("", cfg, cfg, func(k string) (string, bool) { return tc.addr, k == EnvRedisAddr })
		if err == nil || !strings.Contains(err.Error(), EnvRedisAddr) || !strings.Contains(err.Error(), "store.addr") || strings.Contains(err.Error(), secret) {
			t.Errorf("%q from %s: LoadInto = %v, want an error naming the variable and store.addr, without the password", tc.addr, EnvRedisAddr, err)
		}
	}
}

// TestGoRedisLogsThroughAppSlog: go-redis' own log lines (here: a failed
// dial when the module pings a Redis that is not there) reach the
// application's slog handler, not the process' stderr. Not parallel:
// go-redis has one logger per process, and parallel tests run only after
// this one.
func TestGoRedisLogsThroughAppSlog(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Store.Kind, cfg.Store.Addr = StoreRedis, addr
	log := &logRecords{}
	var hook *compaction.CompactionHook
	app := fxtest.New(t, fx.NopLogger, Module(cfg), fx.Supply(slog.New(log)), fx.Populate(&hook))
	if err := app.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	app.RequireStop()
	if log.count("Redis does not answer") != 1 {
		t.Fatalf("the module's own warning is missing: %q", log.msgs)
	}
	if log.count("go-redis") == 0 || log.count("failed to dial") == 0 {
		t.Fatalf("no go-redis line in the app's log: %q", log.msgs)
	}
}

package redisstore

import (
	"errors"
	"log/slog"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/einocompact/einocompact/internal/redistest"
)

// ioTimeout bounds each Redis call of the tests' clients and hooks. The
// tests assert who summarized (one call between replicas): a poll of
// Store.Wait or a Publish that outlasts its bound makes a replica compact
// itself, so a bound a loaded machine can reach (it was 500ms) makes them
// flaky. A stopped server still fails every call at once (connection
// refused), so TestRedisKilledMidRun does not wait for it.
const ioTimeout = 30 * time.Second

// client returns a client of srv as NewClient makes it, closed when the
// test ends.
func client(t *testing.T, srv *redistest.Server) goredis.UniversalClient {
	t.Helper()
	c, err := NewClient(ClientConfig{Addrs: []string{srv.Addr()}, Timeout: ioTimeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil && !errors.Is(err, goredis.ErrClosed) {
			t.Error(err)
		}
	})
	return c
}

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

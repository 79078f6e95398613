package redis

import (
	"errors"
	"log/slog"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/einocompact/einocompact/internal/redistest"
)

// client returns a client of srv as NewClient makes it, closed when the
// test ends.
func client(t *testing.T, srv *redistest.Server) goredis.UniversalClient {
	t.Helper()
	c, err := NewClient(ClientConfig{Addrs: []string{srv.Addr()}, Timeout: 500 * time.Millisecond})
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

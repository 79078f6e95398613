package redisstore

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// dialWatch is a go-redis hook that counts the client's dial attempts and
// the bytes its connections read. With stall set, a dial never reaches the
// network: it waits for its ctx to end, as a dial to a host that drops
// packets would, and records how long its deadline gave it.
type dialWatch struct {
	dials atomic.Int64
	read  atomic.Int64
	stall bool
	bound atomic.Int64 // time.Duration; -1: no deadline
}

func (w *dialWatch) DialHook(next goredis.DialHook) goredis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		w.dials.Add(1)
		if w.stall {
			d, ok := ctx.Deadline()
			if !ok {
				w.bound.Store(-1)
				return nil, context.Canceled
			}
			w.bound.Store(int64(time.Until(d)))
			<-ctx.Done()
			return nil, ctx.Err()
		}
		c, err := next(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &countingConn{Conn: c, n: &w.read}, nil
	}
}

func (w *dialWatch) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook { return next }

func (w *dialWatch) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return next
}

type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// closedPort is a loopback address nothing listens on: a dial there is
// refused at once.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// watchedStore is a Store on a client NewClient made for addr, with w
// watching its dials; the client is closed when the test ends.
func watchedStore(t *testing.T, addr string, timeout time.Duration, w *dialWatch) *Store {
	t.Helper()
	c, err := NewClient(ClientConfig{Addrs: []string{addr}, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	c.AddHook(w)
	s, err := New(Config{Client: c, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// storeCalls are the Store's calls, each made once against a Redis that is
// not there.
var storeCalls = []struct {
	name string
	call func(context.Context, *Store) error
}{
	{"Lookup", func(ctx context.Context, s *Store) error { _, err := s.Lookup(ctx, "conv"); return err }},
	{"Load", func(ctx context.Context, s *Store) error { _, _, err := s.Load(ctx, "key"); return err }},
	{"Claim", func(ctx context.Context, s *Store) error {
		_, err := s.Claim(ctx, "conv", "key", time.Minute)
		return err
	}},
	{"Publish", func(ctx context.Context, s *Store) error {
		return s.Publish(ctx, compaction.Lease{Key: "key", Token: "t"}, []byte("entry"), time.Minute)
	}},
	{"Wait", func(ctx context.Context, s *Store) error { return s.Wait(ctx, "key") }},
}

// TestNewClientRefusedDialFailsAtOnce: against a closed port every store
// call fails after one dial attempt. go-redis retries a failed dial five
// times, 100ms apart, by default: 400ms of a dead Redis per call, above the
// hook's 250ms store timeout.
func TestNewClientRefusedDialFailsAtOnce(t *testing.T) {
	t.Parallel()
	w := &dialWatch{}
	s := watchedStore(t, closedPort(t), 30*time.Second, w)
	for _, c := range storeCalls {
		before := w.dials.Load()
		if err := c.call(context.Background(), s); err == nil {
			t.Fatalf("%s against a closed port: no error", c.name)
		}
		if n := w.dials.Load() - before; n != 1 {
			t.Errorf("%s against a closed port: %d dial attempts, want 1", c.name, n)
		}
	}
}

// TestNewClientSlowDialBounded: a dial that does not complete is bounded by
// ClientConfig.Timeout even when the caller's ctx has no deadline, and is
// not tried again.
func TestNewClientSlowDialBounded(t *testing.T) {
	t.Parallel()
	const timeout = 20 * time.Millisecond
	w := &dialWatch{stall: true}
	s := watchedStore(t, closedPort(t), timeout, w)
	if _, _, err := s.Load(context.Background(), "key"); err == nil {
		t.Fatal("Load over a dial that never completes: no error")
	}
	if bound := time.Duration(w.bound.Load()); bound < 0 || bound > timeout {
		t.Errorf("the dial's deadline gave it %v (negative: none), want at most ClientConfig.Timeout %v", bound, timeout)
	}
	if n := w.dials.Load(); n != 1 {
		t.Errorf("%d dial attempts, want 1", n)
	}
}

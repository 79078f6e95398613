// Package redistest starts a redis-server of the machine's for a test: on a
// free loopback port, in the test's temp dir, nothing persisted, stopped
// when the test ends. Without the binary, a test fails under CI=true and
// is skipped elsewhere, the skip reported at the end of make test
// (internal/testdeps).
package redistest

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/einocompact/einocompact/internal/testdeps"
)

// Server is a redis-server of the machine's, started by a test on a
// free loopback port in a temp dir, with nothing persisted.
type Server struct {
	t    *testing.T
	bin  string
	dir  string
	port int
	cmd  *exec.Cmd
	exit chan struct{}
}

// Start starts a redis-server for t and stops it when t ends.
func Start(t *testing.T) *Server {
	t.Helper()
	s := &Server{t: t, bin: testdeps.Program(t, "redis-server", "redis-server"), dir: t.TempDir()}
	var err error
	// A port found free is not reserved: another listener, or a
	// connection's local port, can take it before redis-server binds it,
	// and redis-server then exits. Another free port is tried.
	for range 5 {
		if s.port, err = freePort(); err != nil {
			t.Fatal(err)
		}
		if err = s.start(); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

// freePort is a loopback TCP port nothing listened on a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	return port, l.Close()
}

// Addr is the server's host:port.
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// Restart starts the server again after Stop, on the same port and dir,
// and waits until it answers PING.
func (s *Server) Restart() {
	s.t.Helper()
	if err := s.start(); err != nil {
		s.t.Fatal(err)
	}
}

// start runs redis-server on s.port and waits until it answers PING. On
// an error no server of s runs.
func (s *Server) start() error {
	s.cmd = exec.Command(s.bin, "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", s.dir, "--protected-mode", "yes")
	if err := s.cmd.Start(); err != nil {
		s.cmd = nil
		return err
	}
	s.exit = make(chan struct{})
	cmd, exit := s.cmd, s.exit
	go func() { _ = cmd.Wait(); close(exit) }()
	c := goredis.NewClient(&goredis.Options{Addr: s.Addr(), MaxRetries: -1, DialTimeout: time.Second})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-exit:
			s.cmd = nil
			return fmt.Errorf("redis-server on port %d exited before answering PING: %w", s.port, err)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.Stop()
			return fmt.Errorf("redis-server on port %d did not answer PING within 10s: %w", s.port, err)
		}
	}
}

// Stop kills the server and waits for it to exit.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	<-s.exit
	s.cmd = nil
}

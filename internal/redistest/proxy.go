package redistest

import (
	"net"
	"sync"
	"testing"
)

// Proxy forwards TCP connections to a Server, so that a test can break the
// link of one client (one replica) while the others keep theirs: Hang
// holds every byte in both directions until Heal, as a network blip or a
// frozen peer does; Drop closes every connection and refuses new ones
// until Heal, as a lost link does.
type Proxy struct {
	ln     net.Listener
	target string
	wg     sync.WaitGroup

	mu     sync.Mutex
	state  linkState
	resume chan struct{} // closed when the state leaves linkHung
	conns  map[net.Conn]struct{}
}

type linkState int

const (
	linkUp linkState = iota
	linkHung
	linkDown
)

// Proxy starts a proxy to s on a free loopback port, closed when the test
// ends.
func (s *Server) Proxy(t *testing.T) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{ln: ln, target: s.Addr(), resume: make(chan struct{}), conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.close)
	return p
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Hang holds every byte in both directions until Heal (or Drop).
func (p *Proxy) Hang() { p.set(linkHung) }

// Drop closes every connection and refuses new ones until Heal.
func (p *Proxy) Drop() { p.set(linkDown) }

// Heal forwards again.
func (p *Proxy) Heal() { p.set(linkUp) }

func (p *Proxy) set(st linkState) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.state == linkHung && st != linkHung {
		close(p.resume)
		p.resume = make(chan struct{})
	}
	p.state = st
	if st == linkDown {
		for c := range p.conns {
			_ = c.Close()
		}
	}
}

func (p *Proxy) close() {
	_ = p.ln.Close()
	p.Drop()
	p.wg.Wait()
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = in.Close()
			continue
		}
		if !p.track(in, out) {
			continue
		}
		p.wg.Add(2)
		go p.pipe(in, out)
		go p.pipe(out, in)
	}
}

// track registers a connection pair, or closes it while the link is down.
func (p *Proxy) track(in, out net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.state == linkDown {
		_ = in.Close()
		_ = out.Close()
		return false
	}
	p.conns[in], p.conns[out] = struct{}{}, struct{}{}
	return true
}

// pipe copies src to dst, holding each chunk while the link hangs.
func (p *Proxy) pipe(src, dst net.Conn) {
	defer p.wg.Done()
	defer func() {
		_ = src.Close()
		_ = dst.Close()
		p.mu.Lock()
		delete(p.conns, src)
		delete(p.conns, dst)
		p.mu.Unlock()
	}()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if !p.pass() {
				return
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// pass waits while the link hangs; false when it is down.
func (p *Proxy) pass() bool {
	for {
		p.mu.Lock()
		st, resume := p.state, p.resume
		p.mu.Unlock()
		switch st {
		case linkUp:
			return true
		case linkDown:
			return false
		}
		<-resume
	}
}

package failover

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"go.uber.org/goleak"

	"github.com/einocompact/einocompact/summarizer/extractive"
)

// deaf is a chat model whose client ignores ctx: it answers only when
// released, and counts the calls that have returned.
type deaf struct {
	release  chan struct{}
	returned atomic.Int32
}

func (d *deaf) Generate(context.Context, []*schema.Message, ...model.Option) (*schema.Message, error) {
	<-d.release
	d.returned.Add(1)
	return schema.AssistantMessage("late answer, to be discarded", nil), nil
}

func (d *deaf) Stream(context.Context, []*schema.Message, ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return nil, errors.New("not used")
}

// TestAttemptTimeoutAbandonsACallThatIgnoresCtx: AttemptTimeout ends an
// attempt on time even when the client ignores ctx; the chain moves on to
// the next model (here the offline extractive summarizer); the abandoned call
// finishes in the background, its answer discarded; Close waits for it and,
// past its own ctx, says how many calls are still running. Not parallel: it
// checks that no goroutine is left behind.
func TestAttemptTimeoutAbandonsACallThatIgnoresCtx(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	tests := []struct {
		name   string
		parent time.Duration // the caller's own deadline; 0 for none
	}{
		{"attempt timeout", 0},
		{"caller's deadline shorter than the attempt timeout", 100 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			slow := &deaf{release: make(chan struct{})}
			// Released after 3 s at the latest, so a chain that waits for it
			// fails the test instead of hanging it.
			stop := time.AfterFunc(3*time.Second, func() { close(slow.release) })
			ex, err := extractive.New(nil)
			if err != nil {
				t.Fatal(err)
			}
			timeout := 100 * time.Millisecond
			if tc.parent > 0 {
				timeout = time.Hour
			}
			m, err := New(&Config{Candidates: []Candidate{{Name: "deaf", Model: slow}, {Name: "extractive", Model: ex}},
				AttemptTimeout: timeout, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if tc.parent > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.parent)
				defer cancel()
			}
			start := time.Now()
			reply, err := m.Generate(ctx, []*schema.Message{schema.SystemMessage("summarize"),
				schema.UserMessage("<conversation_to_summarize>\n[user] fix internal/store/cache.go\n</conversation_to_summarize>")})
			took := time.Since(start)
			if took > time.Second {
				t.Errorf("Generate took %v with a 100 ms bound", took)
			}
			if tc.parent > 0 {
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("Generate = %v, want the caller's deadline", err)
				}
			} else {
				if err != nil {
					t.Fatalf("Generate = %v, want the extractive fallback's reply", err)
				}
				if a := Attempts(reply); len(a) != 2 || a[0].Err == "" || a[1].Model != "extractive" || a[1].Err != "" {
					t.Errorf("attempts %+v, want deaf failed then extractive", a)
				}
				if strings.Contains(reply.Content, "late answer") {
					t.Errorf("the abandoned call's answer was used: %q", reply.Content)
				}
			}
			short, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
			defer cancel()
			if err := m.Close(short); !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "1 summarizer call") {
				t.Errorf("Close with the call still running = %v, want it counted and the deadline", err)
			}
			if stop.Stop() {
				close(slow.release)
			}
			if err := m.Close(context.Background()); err != nil {
				t.Errorf("Close after the call returned = %v", err)
			}
			if slow.returned.Load() != 1 {
				t.Errorf("%d abandoned calls returned before Close did, want 1", slow.returned.Load())
			}
		})
	}
}

// TestFailedAttemptsKeepURLCredentialsOut: a candidate's error quoting a URL
// with a key as its user name or in its query is masked in the attempt record,
// the warning log and the chain's error.
func TestFailedAttemptsKeepURLCredentialsOut(t *testing.T) {
	t.Parallel()
	const key = "sk-canary9d4b2f6a1c8e3d5b7f0a"
	var logs strings.Builder
	m, err := New(&Config{Candidates: []Candidate{
		{Name: "a", Model: &script{steps: []string{`err:Post "http://` + key + `@127.0.0.1:1/v1/chat/completions": connection refused`}}},
		{Name: "b", Model: &script{steps: []string{`err:Post "http://127.0.0.1:1/v1?key=` + key + `": connection refused`}}},
	}, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	var attempts []Attempt
	m.cfg.OnAttempt = func(_ context.Context, a Attempt) { attempts = append(attempts, a) }
	_, err = m.Generate(context.Background(), []*schema.Message{schema.UserMessage("x")})
	if err == nil || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("Generate = %v, want the failure without the key", err)
	}
	for _, a := range attempts {
		if strings.Contains(a.Err, key) {
			t.Errorf("attempt %+v records the key", a)
		}
	}
	if strings.Contains(logs.String(), key) {
		t.Errorf("the key is in the logs:\n%s", logs.String())
	}
}

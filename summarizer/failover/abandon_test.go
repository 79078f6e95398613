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
// attempt without waiting for a client that ignores ctx; the chain moves on
// to the next model (here the offline extractive summarizer); the abandoned
// call finishes in the background, its answer discarded; Close waits for it
// and, past its own ctx, says how many calls are still running. The deaf
// client is released only after Generate returned, so Generate returning at
// all shows it did not wait for the call. Not parallel: it checks that no
// goroutine is left behind.
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
			type outcome struct {
				reply *schema.Message
				err   error
			}
			done := make(chan outcome, 1)
			go func() {
				reply, err := m.Generate(ctx, []*schema.Message{schema.SystemMessage("summarize"),
					schema.UserMessage("<conversation_to_summarize>\n[user] fix internal/store/cache.go\n</conversation_to_summarize>")})
				done <- outcome{reply, err}
			}()
			var got outcome
			// A watchdog, not a measurement: a chain that waits for the
			// deaf call fails here instead of hanging the test.
			select {
			case got = <-done:
			case <-time.After(30 * time.Second):
				close(slow.release)
				t.Fatal("Generate still waits 30 s into a 100 ms bound: it waits for the call that ignores ctx")
			}
			if n := slow.returned.Load(); n != 0 {
				t.Fatalf("%d deaf calls returned before Generate did, want 0", n)
			}
			if tc.parent > 0 {
				if !errors.Is(got.err, context.DeadlineExceeded) {
					t.Errorf("Generate = %v, want the caller's deadline", got.err)
				}
			} else {
				if got.err != nil {
					t.Fatalf("Generate = %v, want the extractive fallback's reply", got.err)
				}
				if a := Attempts(got.reply); len(a) != 2 || a[0].Err == "" || a[1].Model != "extractive" || a[1].Err != "" {
					t.Errorf("attempts %+v, want deaf failed then extractive", a)
				}
				if strings.Contains(got.reply.Content, "late answer") {
					t.Errorf("the abandoned call's answer was used: %q", got.reply.Content)
				}
			}
			short, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
			defer cancel()
			if err := m.Close(short); !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "1 summarizer call") {
				t.Errorf("Close with the call still running = %v, want it counted and the deadline", err)
			}
			close(slow.release)
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

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
)

// script is a chat model that plays a list of outcomes, one per call:
// "ok:TEXT", "empty", "err:MSG", "panic", or "hang" (blocks until ctx ends).
type script struct {
	steps []string
	calls atomic.Int32
}

func (s *script) Generate(ctx context.Context, _ []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	i := int(s.calls.Add(1)) - 1
	step := s.steps[min(i, len(s.steps)-1)]
	switch {
	case strings.HasPrefix(step, "ok:"):
		return schema.AssistantMessage(strings.TrimPrefix(step, "ok:"), nil), nil
	case step == "empty":
		return schema.AssistantMessage("  \n", nil), nil
	case strings.HasPrefix(step, "err:"):
		return nil, errors.New(strings.TrimPrefix(step, "err:"))
	case step == "panic":
		panic("summarizer exploded")
	case step == "hang":
		<-ctx.Done()
		return nil, ctx.Err()
	}
	panic("bad script step " + step)
}

func (s *script) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	m, err := s.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{m}), nil
}

func TestChain(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		scripts   [][]string
		retries   int
		timeout   time.Duration
		wantText  string
		wantErr   string
		wantTries string // model:try:ok|fail, comma-separated
	}{
		{"first answers", [][]string{{"ok:sum"}, {"ok:never"}}, 0, 0, "sum", "", "a:1:ok"},
		{"falls over on error", [][]string{{"err:503"}, {"ok:backup"}}, 0, 0, "backup", "", "a:1:fail,b:1:ok"},
		{"retries before falling over", [][]string{{"err:503", "ok:second try"}, {"ok:never"}}, 1, 0, "second try", "", "a:1:fail,a:2:ok"},
		{"empty text falls over", [][]string{{"empty"}, {"ok:real"}}, 0, 0, "real", "", "a:1:fail,b:1:ok"},
		{"panic falls over", [][]string{{"panic"}, {"ok:calm"}}, 0, 0, "calm", "", "a:1:fail,b:1:ok"},
		// The timeout bounds the quick attempt too: it is long enough that
		// a descheduled goroutine does not make that one time out as well.
		{"attempt timeout falls over", [][]string{{"hang"}, {"ok:quick"}}, 0, time.Second, "quick", "", "a:1:fail,b:1:ok"},
		{"all fail", [][]string{{"err:one"}, {"err:two"}}, 1, 0, "", "every summarizer attempt failed (4 attempts)", "a:1:fail,a:2:fail,b:1:fail,b:2:fail"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var cands []Candidate
			for i, s := range tc.scripts {
				cands = append(cands, Candidate{Name: string(rune('a' + i)), Model: &script{steps: s}})
			}
			var seen []string
			m, err := New(&Config{Candidates: cands, Retries: tc.retries, BaseDelay: time.Millisecond, AttemptTimeout: tc.timeout,
				Logger: slog.New(slog.DiscardHandler), OnAttempt: func(_ context.Context, a Attempt) {
					status := "ok"
					if a.Err != "" {
						status = "fail"
					}
					seen = append(seen, a.Model+":"+string(rune('0'+a.Try))+":"+status)
				}})
			if err != nil {
				t.Fatal(err)
			}
			reply, err := m.Generate(context.Background(), []*schema.Message{schema.UserMessage("x")})
			if got := strings.Join(seen, ","); got != tc.wantTries {
				t.Errorf("attempts %s, want %s", got, tc.wantTries)
			}
			if tc.wantErr != "" {
				if err == nil || !errors.Is(err, ErrAllFailed) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if reply.Content != tc.wantText {
				t.Errorf("reply %q, want %q", reply.Content, tc.wantText)
			}
			if got := len(Attempts(reply)); got != len(seen) {
				t.Errorf("reply records %d attempts, OnAttempt saw %d", got, len(seen))
			}
		})
	}
}

func TestCancelDuringBackoff(t *testing.T) {
	t.Parallel()
	m, _ := New(&Config{Candidates: []Candidate{{Model: &script{steps: []string{"err:down"}}}}, Retries: 3, BaseDelay: time.Hour, MaxDelay: time.Hour,
		Logger: slog.New(slog.DiscardHandler)})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := m.Generate(ctx, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Generate = %v, want the deadline", err)
	}
}

func TestBackoffGrowsAndCaps(t *testing.T) {
	t.Parallel()
	m, _ := New(&Config{Candidates: []Candidate{{Model: &script{}}}, BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second, Jitter: -1})
	want := []time.Duration{100, 200, 400, 800, 1000, 1000}
	for i, w := range want {
		if got := m.backoff(i + 1); got != w*time.Millisecond {
			t.Errorf("retry %d: %v, want %v", i+1, got, w*time.Millisecond)
		}
	}
	j, _ := New(&Config{Candidates: []Candidate{{Model: &script{}}}, BaseDelay: 100 * time.Millisecond, Jitter: 0.5})
	for range 100 {
		if d := j.backoff(1); d < 50*time.Millisecond || d > 150*time.Millisecond {
			t.Fatalf("jittered delay %v outside ±50%%", d)
		}
	}
}

func TestConfigValidation(t *testing.T) {
	t.Parallel()
	ok := []Candidate{{Model: &script{}}}
	tests := []struct {
		cfg  *Config
		want string
	}{
		{nil, "nil Config"},
		{&Config{}, "at least one model"},
		{&Config{Candidates: []Candidate{{Name: "x"}}}, "Candidates[0].Model is nil"},
		{&Config{Candidates: ok, Retries: -1}, "Retries must be >= 0, got -1"},
		{&Config{Candidates: ok, Jitter: 2}, "Jitter must be at most 1, got 2"},
		{&Config{Candidates: ok, BaseDelay: -time.Second}, "BaseDelay must be >= 0"},
	}
	for _, tc := range tests {
		if _, err := New(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.cfg, err, tc.want)
		}
	}
	m, err := New(&Config{Candidates: ok})
	if err != nil || m.cfg.Candidates[0].Name != "*failover.script" || m.cfg.Jitter != 0.2 {
		t.Errorf("defaults: %+v, %v", m.cfg, err)
	}
}

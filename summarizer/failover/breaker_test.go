package failover

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// levels counts the log lines of each level in a text handler's output.
func levels(log string) map[string]int {
	n := map[string]int{}
	for line := range strings.SplitSeq(strings.TrimSpace(log), "\n") {
		if _, rest, ok := strings.Cut(line, "level="); ok {
			lvl, _, _ := strings.Cut(rest, " ")
			n[lvl]++
		}
	}
	return n
}

// A dead first candidate costs the chain its tries once; the next calls skip
// it until the cool-down ends, then one call probes it with a single try. The
// clock is the test's, so no call waits for the cool-down.
func TestBreakerSkipsADeadCandidateForTheCoolDown(t *testing.T) {
	t.Parallel()
	const retries, coolDown = 2, time.Minute
	tests := []struct {
		name string
		// each step: advance the clock by this much, then call Generate.
		advance []time.Duration
		// the first candidate's outcomes, one per call made to it.
		primary []string
		// wantCalls is how many calls the primary got after each Generate.
		wantCalls          []int32
		wantWriter         []string // who wrote each reply
		wantWarn, wantInfo int
		wantStats          CandidateStats
	}{
		{
			name:       "dead for the whole run",
			advance:    []time.Duration{0, time.Second, time.Second, time.Second, time.Second, time.Second, time.Second},
			primary:    []string{"err:dial tcp: connection refused"},
			wantCalls:  []int32{3, 3, 3, 3, 3, 3, 3},
			wantWriter: []string{"b", "b", "b", "b", "b", "b", "b"},
			wantWarn:   1,
			wantStats:  CandidateStats{Name: "a", FailedAttempts: 3, Skipped: 6},
		},
		{
			name:       "still dead at the probe",
			advance:    []time.Duration{0, time.Second, coolDown, time.Second, coolDown},
			primary:    []string{"err:down"},
			wantCalls:  []int32{3, 3, 4, 4, 5},
			wantWriter: []string{"b", "b", "b", "b", "b"},
			wantWarn:   1,
			wantStats:  CandidateStats{Name: "a", FailedAttempts: 5, Skipped: 2},
		},
		{
			name:       "back at the probe",
			advance:    []time.Duration{0, coolDown, 0, 0},
			primary:    []string{"err:down", "err:down", "err:down", "ok:sum"},
			wantCalls:  []int32{3, 4, 5, 6},
			wantWriter: []string{"b", "a", "a", "a"},
			wantWarn:   1,
			wantInfo:   1,
			wantStats:  CandidateStats{Name: "a", Replies: 3, FailedAttempts: 3},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var logs bytes.Buffer
			a := &script{steps: tc.primary}
			m, err := New(&Config{
				Candidates: []Candidate{{Name: "a", Model: a}, {Name: "b", Model: &script{steps: []string{"ok:offline"}}}},
				Retries:    retries, BaseDelay: time.Nanosecond, CoolDown: coolDown,
				Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo})),
			})
			if err != nil {
				t.Fatal(err)
			}
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			m.now = func() time.Time { return now }
			for i, d := range tc.advance {
				now = now.Add(d)
				reply, err := m.Generate(context.Background(), []*schema.Message{schema.UserMessage("x")})
				if err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
				at := Attempts(reply)
				if w := at[len(at)-1].Model; w != tc.wantWriter[i] {
					t.Errorf("call %d: written by %q, want %q", i, w, tc.wantWriter[i])
				}
				if got := a.calls.Load(); got != tc.wantCalls[i] {
					t.Errorf("call %d: the first candidate has had %d calls, want %d", i, got, tc.wantCalls[i])
				}
			}
			n := levels(logs.String())
			if n["WARN"] != tc.wantWarn || n["INFO"] != tc.wantInfo {
				t.Errorf("%d Warn and %d Info lines, want %d and %d:\n%s", n["WARN"], n["INFO"], tc.wantWarn, tc.wantInfo, logs.String())
			}
			if got := m.Stats()[0]; got != tc.wantStats {
				t.Errorf("Stats()[0] = %+v, want %+v", got, tc.wantStats)
			}
		})
	}
}

// The Warn line says in words who failed and who writes instead, for how
// long, and carries the error once.
func TestBreakerWarnSaysWhoWritesInstead(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	m, err := New(&Config{
		Candidates: []Candidate{{Name: "gpt-4o-mini", Model: &script{steps: []string{"err:connection refused"}}}, {Name: "extractive", Model: &script{steps: []string{"ok:sum"}}}},
		Retries:    1, BaseDelay: time.Nanosecond, CoolDown: 90 * time.Second,
		Logger: slog.New(slog.NewTextHandler(&logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := m.Generate(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
	}
	want := `msg="summarizer \"gpt-4o-mini\" failed 2 tries in a row; \"extractive\" writes the summaries until it is tried again in 1m30s"`
	if !strings.Contains(logs.String(), want) || strings.Count(logs.String(), "connection refused") != 1 {
		t.Errorf("log:\n%s\nwant one line with %s and the error", logs.String(), want)
	}
}

// A lone candidate that is cooling down fails the call at once, without a
// call, and the error says why; a negative CoolDown turns the breaker off.
func TestBreakerLastCandidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		coolDown  time.Duration
		wantCalls int32
		wantWarn  int
		wantErr   string
	}{
		{"cools down", time.Minute, 2, 1, "a skipped: it failed every try of an earlier call and cools down"},
		{"breaker off", -1, 6, 3, "a try 2: down"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var logs bytes.Buffer
			a := &script{steps: []string{"err:down"}}
			m, err := New(&Config{Candidates: []Candidate{{Name: "a", Model: a}}, Retries: 1, BaseDelay: time.Nanosecond, CoolDown: tc.coolDown,
				Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			if err != nil {
				t.Fatal(err)
			}
			m.now = func() time.Time { return time.Unix(0, 0) }
			var last error
			for range 3 {
				_, last = m.Generate(context.Background(), nil)
				if !errors.Is(last, ErrAllFailed) {
					t.Fatalf("Generate = %v, want ErrAllFailed", last)
				}
			}
			if !strings.Contains(last.Error(), tc.wantErr) {
				t.Errorf("last error %q, want it to contain %q", last, tc.wantErr)
			}
			if got := a.calls.Load(); got != tc.wantCalls {
				t.Errorf("%d calls, want %d", got, tc.wantCalls)
			}
			if n := levels(logs.String()); n["WARN"] != tc.wantWarn {
				t.Errorf("%d Warn lines, want %d:\n%s", n["WARN"], tc.wantWarn, logs.String())
			}
		})
	}
}

// entering is a chat model that fails its first call, signals its second
// and blocks it until ctx ends, and answers the rest.
type entering struct {
	script
	entered chan struct{}
}

func (e *entering) Generate(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	if e.calls.Load() == 1 {
		close(e.entered)
	}
	return e.script.Generate(ctx, in, opts...)
}

// A probe ended by the caller's ctx is no verdict on the candidate: the next
// call probes it again.
func TestBreakerProbeCancelledIsRetried(t *testing.T) {
	t.Parallel()
	a := &entering{script: script{steps: []string{"err:down", "hang", "ok:back"}}, entered: make(chan struct{})}
	m, err := New(&Config{Candidates: []Candidate{{Name: "a", Model: a}, {Name: "b", Model: &script{steps: []string{"ok:offline"}}}},
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(0, 0)
	m.now = func() time.Time { return now }
	if _, err := m.Generate(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	now = now.Add(DefaultCoolDown)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-a.entered
		cancel()
	}()
	if _, err := m.Generate(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled probe: %v, want context.Canceled", err)
	}
	reply, err := m.Generate(context.Background(), nil)
	if err != nil || reply.Content != "back" {
		t.Fatalf("after the cancelled probe: %v, %v; want the candidate probed again", reply, err)
	}
}

package compaction_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// nrModel answers a cache-aligned request with aligned and a transcript
// request with transcript; a nil answer is a (nil, nil) reply.
type nrModel struct {
	aligned, transcript *schema.Message
	mu                  sync.Mutex
	shapes              []string
}

func (m *nrModel) Generate(_ context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	last := in[len(in)-1]
	if strings.HasPrefix(last.Content, caInstructionStart) {
		m.shapes = append(m.shapes, compaction.ShapeCacheAligned)
		return m.aligned, nil
	}
	m.shapes = append(m.shapes, compaction.ShapeTranscript)
	return m.transcript, nil
}

func (m *nrModel) Stream(context.Context, []*schema.Message, ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return nil, errors.New("nrModel: no streaming")
}

// TestNilReplyIsAnEmptyReply gives a summarizer that replies (nil, nil) to
// each request shape: a nil reply must count as an empty one (the round
// fails with ErrNoUsableSummary, or a cache-aligned round falls back to the
// transcript request), never a panic.
func TestNilReplyIsAnEmptyReply(t *testing.T) {
	t.Parallel()
	summary := schema.AssistantMessage("## Work completed\n- fetched t1 to t3", nil)
	cases := []struct {
		name                string
		aligned             bool
		alignedReply, reply *schema.Message
		shapes              string // requests, in order, of the first round
		fallback            string
		ok                  bool // the compaction succeeds
	}{
		{name: "transcript", reply: nil, shapes: "transcript"},
		{name: "aligned, then transcript nil", aligned: true, shapes: "cache_aligned,transcript", fallback: compaction.FallbackEmptyReply},
		{name: "aligned nil, transcript answers", aligned: true, reply: summary, shapes: "cache_aligned,transcript",
			fallback: compaction.FallbackEmptyReply, ok: true},
	}
	for _, tc := range cases {
		for _, raise := range []bool{false, true} {
			t.Run(tc.name+map[bool]string{false: "", true: ", raise"}[raise], func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				m := &nrModel{aligned: tc.alignedReply, transcript: tc.reply}
				var rounds []compaction.Round
				c, err := compaction.NewSummarizationCompactor(ctx, &compaction.SummarizationConfig{
					ChatModel: m, CacheAligned: tc.aligned, RaiseOnFailure: raise, Logger: slog.New(slog.DiscardHandler),
					OnRound: func(_ context.Context, r compaction.Round) { rounds = append(rounds, r) }})
				if err != nil {
					t.Fatal(err)
				}
				msgs := caConversation(6)
				total, err := h22FC4.Count(ctx, msgs, nil)
				if err != nil {
					t.Fatal(err)
				}
				out, err := c.Compact(ctx, msgs, total-150, h22FC4)
				switch {
				case tc.ok:
					if err != nil || out == nil {
						t.Fatalf("Compact: %v, %d messages; want a compaction", err, len(out))
					}
				case raise:
					if !errors.Is(err, compaction.ErrNoUsableSummary) || out != nil {
						t.Fatalf("Compact: %v, %d messages; want an error wrapping ErrNoUsableSummary", err, len(out))
					}
				default:
					if err != nil || out != nil {
						t.Fatalf("Compact: %v, %d messages; want (nil, nil)", err, len(out))
					}
				}
				if len(rounds) == 0 || rounds[0].AlignedFallback != tc.fallback {
					t.Fatalf("rounds %+v; want the first with fallback %q", rounds, tc.fallback)
				}
				if got := strings.Join(m.shapes[:len(strings.Split(tc.shapes, ","))], ","); got != tc.shapes {
					t.Errorf("requests %q, want the first round's %q", m.shapes, tc.shapes)
				}
			})
		}
	}
}

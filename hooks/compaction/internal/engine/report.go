package engine

import (
	"context"
	"sync"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/cost"
)

// Report is compaction.Report as the engine fills it: the same fields,
// documented there, with Keep for the report's unexported verbatim floor
// and the rounds as Round. The public package copies it field for field;
// TestReportCopiesEveryField holds the two together.
type Report struct {
	Step              int
	Estimated         int
	ProviderTokens    int
	Trigger           float64
	Triggered         bool
	Overhead          int
	Target            int
	Deep              bool
	Keep              int
	Compacted         bool
	BackedOff         bool
	StepGrowth        int
	RoomSteps         float64
	Deeper            bool
	NoRoom            bool
	RoomHeld          bool
	Overflow          bool
	MessagesBefore    int
	MessagesAfter     int
	TokensBefore      int
	TokensAfter       int
	Rounds            []Round
	Duration          time.Duration
	Err               error
	Fallback          string
	ArchiveRef        string
	Prepared          bool
	Shared            bool
	Stall             time.Duration
	Deferred          bool
	Preparing         bool
	InvalidatedTokens int
	ColdCache         bool
	Unprofitable      bool
}

// BeforeStep is the 1-based number of the model call r precedes.
func (r *Report) BeforeStep() int { return r.Step + 1 }

// Round is one summarizer round as the engine sees it: what it reads of a
// compaction.Round (its usage and error), and the Round itself in Data,
// which the engine hands back untouched.
type Round struct {
	Usage *schema.TokenUsage
	Err   error
	Data  any
}

// Done is compaction.PreparedDone.
type Done struct {
	Step     int
	Duration time.Duration
	Err      error
	Declined bool
	Refused  bool
}

// roundLog collects the rounds of one compaction; it travels in the
// compactor's ctx so that a compactor shared by many runs keeps no state.
type roundLog struct {
	mu     sync.Mutex
	rounds []Round
	// outputs, when set, learns from each round's usage what the
	// summarizer bills as output (the hook's cost model).
	outputs *cost.OutputCosts
}

type roundLogKey struct{}

func withRoundLog(ctx context.Context, outputs *cost.OutputCosts) (context.Context, *roundLog) {
	l := &roundLog{outputs: outputs}
	return context.WithValue(ctx, roundLogKey{}, l), l
}

func (l *roundLog) take() []Round {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.rounds
}

// ReportRound adds r to the Report of the compaction running under ctx. A
// compactor calls it once per summarizer round; outside a CompactionHook it
// does nothing.
func ReportRound(ctx context.Context, r Round) {
	l, ok := ctx.Value(roundLogKey{}).(*roundLog)
	if !ok {
		return
	}
	if l.outputs != nil {
		// Every round is paid for, whether its compaction is applied,
		// dropped unused or abandoned.
		l.outputs.Observe(r.Usage)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rounds = append(l.rounds, r)
}

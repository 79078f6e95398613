package eval

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/hooks/compaction/identifiers"
)

// Config says how Run compacts. Zero fields take the defaults shown.
type Config struct {
	// Compactor does the compacting. Required.
	Compactor compaction.Compactor
	// Counter measures conversations. Default compaction.DefaultCounter().
	Counter compaction.TokenCounter
	// ContextWindow is the simulated model's window in tokens. Default 16000.
	ContextWindow int
	// CompactAt and CompactTo are the CompactionHook thresholds, as fractions
	// of ContextWindow. Defaults 0.7 and 0.4.
	CompactAt, CompactTo float64
	// Rounds, when set, returns how many summarizer rounds the compactor has
	// run so far (successful, failed), for the report; Run takes differences.
	Rounds func() (ok, failed int)
}

// Result is what Run measured on one trajectory.
type Result struct {
	Name     string
	Steps    int
	Messages int // messages in the uncompacted conversation

	FactsPlanted  int
	FactsReplaced int // planted in messages compaction replaced
	FactsSurvived int // of those, still verbatim in the final conversation
	// ByKind counts replaced and surviving facts per kind.
	ByKind map[FactKind][2]int

	IDsReplaced int // identifiers extracted from the replaced messages
	IDsSurvived int // of those, still verbatim in the final conversation

	TokensFull  int // the uncompacted conversation
	TokensFinal int // the conversation as compaction left it

	Compactions  int // Compact calls that returned a new conversation
	Rounds       int // successful summarizer rounds
	FailedRounds int
}

// Run replays each trajectory step by step: after every step, when the
// conversation reaches CompactAt*ContextWindow tokens, it is compacted to
// CompactTo*ContextWindow. Compaction errors end the run with an error.
func Run(ctx context.Context, cfg Config, corpus []Trajectory) ([]Result, error) {
	if cfg.Compactor == nil {
		return nil, errors.New("eval: Config.Compactor is required")
	}
	if cfg.Counter == nil {
		cfg.Counter = compaction.DefaultCounter()
	}
	if cfg.ContextWindow == 0 {
		cfg.ContextWindow = 16000
	}
	if cfg.CompactAt == 0 {
		cfg.CompactAt = 0.7
	}
	if cfg.CompactTo == 0 {
		cfg.CompactTo = 0.4
	}
	if cfg.ContextWindow < 1 || cfg.CompactTo <= 0 || cfg.CompactTo >= cfg.CompactAt || cfg.CompactAt > 1 {
		return nil, fmt.Errorf("eval: need ContextWindow >= 1 and 0 < CompactTo < CompactAt <= 1, got %d, %g, %g",
			cfg.ContextWindow, cfg.CompactTo, cfg.CompactAt)
	}
	out := make([]Result, 0, len(corpus))
	for _, t := range corpus {
		r, err := runOne(ctx, cfg, t)
		if err != nil {
			return nil, fmt.Errorf("eval: %s: %w", t.Name, err)
		}
		out = append(out, r)
	}
	return out, nil
}

func runOne(ctx context.Context, cfg Config, t Trajectory) (Result, error) {
	res := Result{Name: t.Name, Steps: len(t.Steps) - 1, Messages: len(t.Messages), FactsPlanted: len(t.Facts), ByKind: map[FactKind][2]int{}}
	trigger := int(float64(cfg.ContextWindow) * cfg.CompactAt)
	target := int(float64(cfg.ContextWindow) * cfg.CompactTo)
	ok0, failed0 := roundsOf(cfg)
	var conv []*schema.Message
	prev := 0
	for _, end := range t.Steps {
		conv = append(conv, t.Messages[prev:end]...)
		prev = end
		n, err := cfg.Counter.Count(ctx, conv, nil)
		if err != nil {
			return res, err
		}
		if n < trigger {
			continue
		}
		next, err := cfg.Compactor.Compact(ctx, conv, target, cfg.Counter)
		if err != nil {
			return res, err
		}
		if next != nil {
			conv = next
			res.Compactions++
		}
		if err := checkNoOrphans(conv); err != nil {
			return res, err
		}
	}
	ok1, failed1 := roundsOf(cfg)
	res.Rounds, res.FailedRounds = ok1-ok0, failed1-failed0

	final := compaction.Render(conv, compaction.RenderOptions{ToolCallIDs: true})
	present := make(map[*schema.Message]bool, len(conv))
	for _, m := range conv {
		present[m] = true
	}
	var replaced []int
	for i, m := range t.Messages {
		if !present[m] {
			replaced = append(replaced, i)
		}
	}
	isReplaced := make(map[int]bool, len(replaced))
	for _, i := range replaced {
		isReplaced[i] = true
	}
	for _, f := range t.Facts {
		if !isReplaced[f.Message] {
			continue
		}
		k := res.ByKind[f.Kind]
		k[0]++
		res.FactsReplaced++
		if strings.Contains(final, f.Value) {
			k[1]++
			res.FactsSurvived++
		}
		res.ByKind[f.Kind] = k
	}
	for _, id := range identifiers.Identifiers(compaction.Transcript(t.Messages, replaced)) {
		res.IDsReplaced++
		if strings.Contains(final, id) {
			res.IDsSurvived++
		}
	}
	var err error
	if res.TokensFull, err = cfg.Counter.Count(ctx, t.Messages, nil); err != nil {
		return res, err
	}
	if res.TokensFinal, err = cfg.Counter.Count(ctx, conv, nil); err != nil {
		return res, err
	}
	return res, nil
}

func roundsOf(cfg Config) (int, int) {
	if cfg.Rounds == nil {
		return 0, 0
	}
	return cfg.Rounds()
}

// checkNoOrphans verifies every tool result follows the call that asked for
// it, the invariant a compactor must never break.
func checkNoOrphans(conv []*schema.Message) error {
	open := map[string]bool{}
	for i, m := range conv {
		switch {
		case m.Role == schema.Assistant:
			open = map[string]bool{}
			for _, tc := range m.ToolCalls {
				open[tc.ID] = true
			}
		case m.Role == schema.Tool:
			if !open[m.ToolCallID] {
				return fmt.Errorf("tool result %q at %d has no call before it", m.ToolCallID, i)
			}
		}
	}
	return nil
}

// RoundCounter counts summarizer rounds; pass Observe as
// SummarizationConfig.OnRound and Counts as Config.Rounds.
type RoundCounter struct {
	mu         sync.Mutex
	ok, failed int
}

// Observe records one round.
func (c *RoundCounter) Observe(_ context.Context, r compaction.Round) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r.Err != nil {
		c.failed++
	} else {
		c.ok++
	}
}

// Counts returns the rounds recorded so far.
func (c *RoundCounter) Counts() (ok, failed int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ok, c.failed
}

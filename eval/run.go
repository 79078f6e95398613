package eval

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/hooks/compaction/identifiers"
	"github.com/einocompact/einocompact/internal/spotlight"
	"github.com/einocompact/einocompact/internal/substrings"
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
	// Hook, when set, compacts through a compaction.CompactionHook with
	// these thresholds and every other default of the hook, as an agent
	// does: deep compactions included (compaction.Report.Deep), the
	// model-free fallback excluded, since a failed round fails the run.
	// Unset, Run calls the Compactor with the CompactTo target itself, as
	// the reference's hook does.
	Hook bool
	// Archive, with Hook, is the hook's HookConfig.Archive; Run then
	// probes every planted fact of a replaced message with the recall tool
	// (Result.Recall).
	Archive compaction.Archive
	// Rounds, when set, returns the totals of the summarizer rounds the
	// compactor has run so far (a RoundCounter's Totals), for the report; Run
	// takes differences, so one counter may serve a whole corpus.
	Rounds func() RoundTotals
}

// Result is what Run measured on one trajectory.
type Result struct {
	Name     string
	Steps    int
	Messages int // messages in the uncompacted conversation

	FactsPlanted  int
	FactsReplaced int // planted in messages compaction replaced
	FactsSurvived int // of those, still in the final conversation, verbatim or marked
	// ByKind counts replaced and surviving facts per kind.
	ByKind map[FactKind][2]int

	IDsReplaced int // identifiers extracted from the replaced messages
	IDsSurvived int // of those, still verbatim in the final conversation

	// LedgerIDsMarked counts those of LedgerIDsKept that are in the final
	// conversation only in their marked form (spotlight.Datamark).
	LedgerIDsMarked int
	// LedgerIDs counts what the identifier ledger extracts (its default
	// extractors over each message as the ledger renders it) from the
	// trajectory's messages that compaction replaced; LedgerIDsKept, how many
	// of those are verbatim in the final conversation. This is the measure of
	// issue 6's done criterion: with the ledger on it must be all of them.
	LedgerIDs, LedgerIDsKept int
	// Ledger sums Round.Identifiers over the trajectory's rounds: Survived of
	// Found is survival in the summaries as written, before repair.
	Ledger compaction.IdentifierStats

	TokensFull  int // the uncompacted conversation
	TokensFinal int // the conversation as compaction left it
	// TokensMarking is what marking tool text as data costs in TokensFinal:
	// TokensFinal minus the final conversation counted with every marked
	// text unmarked and the note that explains the marks removed.
	TokensMarking int

	Compactions  int // Compact calls that returned a new conversation
	Rounds       int // successful summarizer rounds
	FailedRounds int // rounds that failed for any reason but RefusedRounds'
	// RefusedRounds are rounds whose summary did not make the conversation
	// smaller (compaction.ErrSummaryNotSmaller): the compactor plans around
	// them and goes on, unless RaiseOnFailure is set.
	RefusedRounds int

	// Recall is what the recall probes found (Config.Archive).
	Recall RecallStats
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
	if cfg.Archive != nil && !cfg.Hook {
		return nil, errors.New("eval: Config.Archive needs Config.Hook: the hook archives what it removes")
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
	before := roundsOf(cfg)
	var hook *compaction.CompactionHook
	if cfg.Hook {
		h, err := compaction.NewCompactionHook(ctx, &compaction.HookConfig{Compactor: cfg.Compactor, ContextWindow: cfg.ContextWindow,
			CompactAt: cfg.CompactAt, CompactTo: cfg.CompactTo, TokenCounter: cfg.Counter, DisableFallback: true, Archive: cfg.Archive,
			Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			return res, err
		}
		defer h.Close(ctx)
		hook = h
	}
	var conv []*schema.Message
	prev := 0
	for step, end := range t.Steps {
		conv = append(conv, t.Messages[prev:end]...)
		prev = end
		n, err := cfg.Counter.Count(ctx, conv, nil)
		if err != nil {
			return res, err
		}
		if n < trigger {
			continue
		}
		if hook != nil {
			st := &hooks.State{Messages: conv, StepCount: step}
			r, err := hook.Decide(ctx, st)
			if err != nil {
				return res, err
			}
			if r.Compacted {
				conv = st.Messages
				res.Compactions++
			}
		} else {
			next, err := cfg.Compactor.Compact(ctx, conv, target, cfg.Counter)
			if err != nil {
				return res, err
			}
			if next != nil {
				conv = next
				res.Compactions++
			}
		}
		if err := checkNoOrphans(conv); err != nil {
			return res, err
		}
	}
	done := roundsOf(cfg).minus(before)
	res.Rounds, res.FailedRounds, res.RefusedRounds, res.Ledger = done.OK, done.Failed, done.Refused, done.Identifiers

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
		if strings.Contains(final, f.Value) || strings.Contains(final, spotlight.Datamark(f.Value)) {
			k[1]++
			res.FactsSurvived++
		}
		res.ByKind[f.Kind] = k
	}
	// Tool-call ids are not identifiers worth keeping (the ledger leaves
	// them out), so they count neither as found nor as kept.
	callIDs := map[string]bool{}
	for _, m := range t.Messages {
		for _, tc := range m.ToolCalls {
			callIDs[tc.ID] = true
		}
		if m.ToolCallID != "" {
			callIDs[m.ToolCallID] = true
		}
	}
	var all []string
	for _, id := range identifiers.Identifiers(compaction.Transcript(t.Messages, replaced)) {
		if !callIDs[id] {
			all = append(all, id)
		}
	}
	res.IDsReplaced = len(all)
	res.IDsSurvived, _ = countKept(all, final)
	ledgerIDs := map[string]bool{}
	var ledgerList []string
	for _, i := range replaced {
		text := compaction.RenderMessage(t.Messages[i], compaction.RenderOptions{Attachment: compaction.DescribeAttachment})
		for _, m := range identifiers.Extract(text, identifiers.DefaultExtractors()) {
			if ledgerIDs[m.Value] || callIDs[m.Value] {
				continue
			}
			ledgerIDs[m.Value] = true
			ledgerList = append(ledgerList, m.Value)
		}
	}
	res.LedgerIDs = len(ledgerList)
	res.LedgerIDsKept, res.LedgerIDsMarked = countKept(ledgerList, final)
	var err error
	if res.TokensFull, err = cfg.Counter.Count(ctx, t.Messages, nil); err != nil {
		return res, err
	}
	if res.TokensFinal, err = cfg.Counter.Count(ctx, conv, nil); err != nil {
		return res, err
	}
	plain, err := cfg.Counter.Count(ctx, unmarked(conv), nil)
	if err != nil {
		return res, err
	}
	res.TokensMarking = res.TokensFinal - plain
	return res, probeRecall(ctx, cfg, t, conv, isReplaced, final, &res)
}

// countKept is how many of ids occur in text verbatim or in their
// datamarked form (spotlight.Datamark: ˆ for each space), the form in which
// the ledger and the extractive summarizer quote text from tool results, and
// how many of those occur only marked. An identifier without white space has
// one form only.
func countKept(ids []string, text string) (kept, onlyMarked int) {
	forms := make([]string, 2*len(ids))
	for i, id := range ids {
		forms[2*i], forms[2*i+1] = id, spotlight.Datamark(id)
	}
	found := substrings.NewSet(forms).Found(text)
	for i := range ids {
		if found[2*i] || found[2*i+1] {
			kept++
		}
		if !found[2*i] && found[2*i+1] {
			onlyMarked++
		}
	}
	return kept, onlyMarked
}

// unmarked is conv with the marking of tool text undone in every message:
// marked texts unmarked and the note explaining them removed. Counting it
// against conv measures what the marking costs.
func unmarked(conv []*schema.Message) []*schema.Message {
	out := make([]*schema.Message, len(conv))
	for i, m := range conv {
		c := *m
		c.Content = strings.Replace(spotlight.UnmarkAll(m.Content), spotlight.Note+"\n", "", 1)
		out[i] = &c
	}
	return out
}

func roundsOf(cfg Config) RoundTotals {
	if cfg.Rounds == nil {
		return RoundTotals{}
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

// RoundTotals sums summarizer rounds.
type RoundTotals struct {
	OK, Failed  int                        // rounds with a summary applied, and failed ones but the refused
	Refused     int                        // rounds whose summary was not smaller (ErrSummaryNotSmaller)
	Identifiers compaction.IdentifierStats // Round.Identifiers summed over every round
}

func (a RoundTotals) minus(b RoundTotals) RoundTotals {
	return RoundTotals{OK: a.OK - b.OK, Failed: a.Failed - b.Failed, Refused: a.Refused - b.Refused, Identifiers: compaction.IdentifierStats{
		Found:    a.Identifiers.Found - b.Identifiers.Found,
		Survived: a.Identifiers.Survived - b.Identifiers.Survived,
		Appended: a.Identifiers.Appended - b.Identifiers.Appended,
		Dropped:  a.Identifiers.Dropped - b.Identifiers.Dropped,
	}}
}

// RoundCounter sums summarizer rounds; pass Observe as
// SummarizationConfig.OnRound and Totals as Config.Rounds.
type RoundCounter struct {
	mu  sync.Mutex
	tot RoundTotals
}

// Observe records one round.
func (c *RoundCounter) Observe(_ context.Context, r compaction.Round) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case errors.Is(r.Err, compaction.ErrSummaryNotSmaller):
		c.tot.Refused++
	case r.Err != nil:
		c.tot.Failed++
	default:
		c.tot.OK++
	}
	s := &c.tot.Identifiers
	s.Found += r.Identifiers.Found
	s.Survived += r.Identifiers.Survived
	s.Appended += r.Identifiers.Appended
	s.Dropped += r.Identifiers.Dropped
}

// Totals returns the sums recorded so far.
func (c *RoundCounter) Totals() RoundTotals {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tot
}

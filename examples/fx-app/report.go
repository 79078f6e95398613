package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cloudwego/eino/schema"
	"github.com/samber/lo"

	"github.com/einocompact/einocompact/bench"
	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
)

// reporter prints one line per step and per compaction of one agent run,
// and the summary table at the end. It is per run: it travels in the run's
// context (withReporter) so the hooks that feed it stay stateless.
type reporter struct {
	out     io.Writer
	quiet   bool
	counter compaction.TokenCounter

	mu            sync.Mutex
	shadow        []*schema.Message // the conversation as it would be without compaction
	steps         []stepStat
	compactions   []compactionStat
	preCompaction []*schema.Message  // the conversation before the compaction hook ran
	pending       *compaction.Report // the report of the compaction that just ran
	toolTokens    int                // the tool schemas' size by the local counter, sent with every call
	tools         []*schema.ToolInfo // the tool schemas of the last call
	// requests are the agent's and the summarizer's requests, as sent, in
	// the order they were made, for the bill (compare).
	requests []bench.Request
}

type stepStat struct {
	action                string
	est, provider, shadow int // prompt tokens: local estimate, provider's count, estimate without compaction
	completion            int
}

type compactionStat struct {
	beforeStep               int
	tiers                    string
	replaced                 int
	msgsBefore, msgsAfter    int
	tokBefore, tokAfter, tgt int
	est, overhead            int     // Report.Estimated and Report.Overhead: the call as estimated, and its part beyond the messages
	trigger                  float64 // Report.Trigger
	latency                  time.Duration
	stall                    time.Duration // how long the model call waited (Report.Stall)
	prepared                 bool          // computed in the background (Report.Prepared)
	shared                   bool          // written by another hook and taken from the store (Report.Shared)
	rounds, attempts         int
	sumPrompt, sumCompletion int // the summarizer's reported usage
	sumCached                int // of sumPrompt, what the provider reported read from its cache
	ids                      compaction.IdentifierStats
	// room is the room bought below the trigger, in steps of growth
	// tokens (Report.RoomSteps, StepGrowth); deeper and noRoom are
	// Report.Deeper and Report.NoRoom.
	room           float64
	growth         int
	deeper, noRoom bool
}

type reporterKey struct{}

func withReporter(ctx context.Context, r *reporter) context.Context {
	return context.WithValue(ctx, reporterKey{}, r)
}

func reporterFrom(ctx context.Context) *reporter {
	r, _ := ctx.Value(reporterKey{}).(*reporter)
	return r
}

func (r *reporter) printf(format string, args ...any) {
	if !r.quiet {
		fmt.Fprintf(r.out, format, args...)
	}
}

// start records the conversation the run begins with.
func (r *reporter) start(msgs []*schema.Message) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.shadow = slices.Clone(msgs)
}

// modelReplied records a step: the reply is the last message, and what the
// model was sent is everything before it.
func (r *reporter) modelReplied(ctx context.Context, st *hooks.State) {
	if len(st.Messages) == 0 {
		return
	}
	reply := st.Messages[len(st.Messages)-1]
	sent := st.Messages[:len(st.Messages)-1]
	r.mu.Lock()
	defer r.mu.Unlock()
	s := stepStat{action: describe(reply)}
	// The approximate counter cannot fail; a counter that can would show 0.
	s.est, _ = r.counter.Count(ctx, sent, st.Tools)
	r.toolTokens, _ = r.counter.Count(ctx, nil, st.Tools)
	s.shadow, _ = r.counter.Count(ctx, r.shadow, st.Tools)
	if u := usage(reply); u != nil {
		s.provider, s.completion = u.PromptTokens, u.CompletionTokens
	}
	plain := *reply
	plain.ResponseMeta = nil
	r.requests = append(r.requests, bench.Request{Step: len(r.steps), Tools: st.Tools, Messages: slices.Clone(sent), Output: bench.ReplyTokens(&plain)})
	r.tools = st.Tools
	r.shadow = append(r.shadow, reply)
	r.steps = append(r.steps, s)
	provider := "     -"
	if s.provider > 0 {
		provider = fmt.Sprintf("%6d", s.provider)
	}
	r.printf("step %2d  %-46s  prompt ~%5d est %s provider  (uncompacted ~%5d)\n",
		len(r.steps), clipRunes(s.action, 46), s.est, provider, s.shadow)
}

// summarized records a summarizer request and its reply for the bill,
// under the step whose model call it came before (or during, prepared in
// the background).
func (r *reporter) summarized(input []*schema.Message, tools []*schema.ToolInfo, reply *schema.Message) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests = append(r.requests, bench.Request{Step: len(r.steps), Summarizer: true, Tools: tools, Messages: slices.Clone(input),
		Output: bench.ReplyTokens(schema.AssistantMessage(reply.Content, nil))})
}

// toolsRan records the tool results that follow the last assistant message.
func (r *reporter) toolsRan(st *hooks.State) {
	i := compaction.LastAssistantIndex(st.Messages)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.shadow = append(r.shadow, st.Messages[i+1:]...)
}

// beforeCompaction remembers the conversation the compaction hook is about
// to see, so afterCompaction can tell which messages it replaced.
func (r *reporter) beforeCompaction(msgs []*schema.Message) {
	r.mu.Lock()
	defer r.mu.Unlock()
	// Hooks replace the slice rather than edit it, so keeping the slice is
	// a faithful snapshot.
	r.preCompaction, r.pending = msgs, nil
}

// ObserveCompaction implements compaction.Observer: it keeps the report for
// afterCompaction, which also sees the messages.
func (r *reporter) ObserveCompaction(_ context.Context, rep compaction.Report) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pending = &rep
}

// afterCompaction prints and records the compaction that just ran, if any.
// "Replaced" counts the messages of the conversation before that are gone
// from it after, whatever the strategy: summarized, dropped or pruned.
func (r *reporter) afterCompaction(msgs []*schema.Message) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rep, before := r.pending, r.preCompaction
	r.pending, r.preCompaction = nil, nil
	if rep == nil {
		return
	}
	// The step numbering of the hook's log and the inspector
	// (Report.BeforeStep): the run's model calls, counting from 1.
	step := rep.BeforeStep()
	if !rep.Compacted {
		switch {
		case rep.Err != nil:
			r.printf("  ! compaction before step %d failed: %v\n", step, rep.Err)
		case rep.Deferred:
			r.printf("  - compaction before step %d deferred: call ~%d ≥ trigger %.0f went out uncompacted, below the ceiling, while the prepared compaction is still being written\n",
				step, rep.Estimated, rep.Trigger)
		case rep.RoomHeld:
			r.printf("  - compaction before step %d held: call ~%d ≥ trigger %.0f went out uncompacted, below the ceiling: the last compaction bought less than two steps of room\n",
				step, rep.Estimated, rep.Trigger)
		case rep.BackedOff:
			r.printf("  - compaction before step %d backed off: call ~%d ≥ trigger %.0f went out uncompacted after a recent failure\n", step, rep.Estimated, rep.Trigger)
		default:
			r.printf("  - compaction before step %d: call ~%d ≥ trigger %.0f, nothing left to compact\n", step, rep.Estimated, rep.Trigger)
		}
		return
	}
	c := compactionStat{beforeStep: step, msgsBefore: rep.MessagesBefore, msgsAfter: rep.MessagesAfter,
		tokBefore: rep.TokensBefore, tokAfter: rep.TokensAfter, tgt: rep.Target, rounds: len(rep.Rounds), stall: rep.Stall, prepared: rep.Prepared,
		est: rep.Estimated, overhead: rep.Overhead, trigger: rep.Trigger, shared: rep.Shared,
		room: rep.RoomSteps, growth: rep.StepGrowth, deeper: rep.Deeper, noRoom: rep.NoRoom}
	// By content, not pointer: a compaction applied from the store holds
	// decoded copies of the messages it kept.
	c.replaced = compaction.ReplacedMessages(before, msgs)
	// Markers new in msgs that no summarizer round accounts for name the
	// strategy that wrote them (sliding window, pruning), once each. New
	// by pointer: a sliding window's note may say what the one it replaced
	// said, and still be its work.
	tiers := lo.Uniq(lo.FilterMap(lo.Without(msgs, before...), func(m *schema.Message, _ int) (string, bool) {
		mk, ok := compaction.MarkerOf(m)
		return mk.Strategy, ok && mk.Strategy != compaction.StrategySummarization
	}))
	for _, rd := range rep.Rounds {
		c.latency += rd.Latency
		c.attempts += max(rd.Attempts, 1)
		c.ids.Found += rd.Identifiers.Found
		c.ids.Survived += rd.Identifiers.Survived
		c.ids.Appended += rd.Identifiers.Appended
		c.ids.Dropped += rd.Identifiers.Dropped
		if rd.Usage != nil {
			c.sumPrompt += rd.Usage.PromptTokens
			c.sumCompletion += rd.Usage.CompletionTokens
		}
		c.sumCached += rd.CachedTokens
		if errors.Is(rd.Err, compaction.ErrSummaryNotSmaller) {
			// Refused and planned around; the compaction may well
			// have been applied.
			tiers = append(tiers, rd.Tier+" (not smaller, not used)")
			continue
		}
		if rd.Err != nil {
			tiers = append(tiers, rd.Tier+" (failed)")
			continue
		}
		tiers = append(tiers, rd.Tier)
	}
	c.tiers = strings.Join(tiers, " + ")
	r.compactions = append(r.compactions, c)
	ids := ""
	if c.ids.Found > 0 {
		ids = fmt.Sprintf(", identifiers kept %d/%d", c.ids.Survived+c.ids.Appended, c.ids.Found)
	}
	r.printf("  ↳ compaction #%d before step %d: %s; %d messages replaced (%d → %d); call ~%d ≥ trigger %.0f: messages %d + overhead %d; messages %d → %d, target %d = %d − overhead %d; summarizer %s%s; %s; waited %s\n",
		len(r.compactions), c.beforeStep, c.tiers, c.replaced, c.msgsBefore, c.msgsAfter, c.est, c.trigger, c.tokBefore, c.overhead,
		c.tokBefore, c.tokAfter, c.tgt, c.tgt+c.overhead, c.overhead, ms(c.latency), ids, roomText(c), waited(c))
}

// summary writes the closing table. It is printed even with --quiet.
func (r *reporter) summary(w io.Writer, res runSummary) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var est, shadow, provider, peakEst, peakProvider, completion int
	for _, s := range r.steps {
		est += s.est
		shadow += s.shadow
		provider += s.provider
		completion += s.completion
		peakEst = max(peakEst, s.est)
		peakProvider = max(peakProvider, s.provider)
	}
	var replaced, rounds, attempts, sumPrompt, sumCompletion, waitedCalls int
	var latency, stall, longest time.Duration
	var ids compaction.IdentifierStats
	for _, c := range r.compactions {
		replaced += c.replaced
		rounds += c.rounds
		attempts += c.attempts
		ids.Found += c.ids.Found
		ids.Survived += c.ids.Survived
		ids.Appended += c.ids.Appended
		ids.Dropped += c.ids.Dropped
		latency += c.latency
		sumPrompt += c.sumPrompt
		sumCompletion += c.sumCompletion
		stall += c.stall
		longest = max(longest, c.stall)
		if c.stall >= time.Millisecond {
			waitedCalls++
		}
	}
	last := stepStat{}
	if len(r.steps) > 0 {
		last = r.steps[len(r.steps)-1]
	}
	fmt.Fprintf(w, "\nsummary\n")
	row := func(k, format string, args ...any) { fmt.Fprintf(w, "  %-20s %s\n", k, fmt.Sprintf(format, args...)) }
	row("model", "%s", res.model)
	row("steps", "%d model calls, %d tool calls (%s), exit %s", len(r.steps), sumCalls(res.toolCalls), callList(res.toolCalls), res.exit)
	row("context window", "%d tokens: compact at %.0f, down to %d", res.window, res.trigger, res.target)
	row("tool schemas", "~%d est, sent with every call: part of each call's est and of each compaction's overhead", r.toolTokens)
	row("compactions", "%d, replacing %d messages", len(r.compactions), replaced)
	if len(r.compactions) > 0 {
		row("waited", "%d of %d compactions held their model call 1ms or more; longest %s, all together %s", waitedCalls, len(r.compactions), ms(longest), ms(stall))
	}
	if rounds == 0 {
		row("summarizer", "%s: not called", res.summarizer)
	} else {
		row("summarizer", "%s: %d rounds, %d calls, %s, %d prompt + %d completion tokens%s", res.summarizer, rounds, attempts, ms(latency),
			sumPrompt, sumCompletion, summarizerTokensSource(res))
	}
	if ids.Found > 0 {
		row("identifiers", "%d found in replaced messages: %d (%s) written into summaries, %d appended verbatim by the ledger, %d dropped by its cap",
			ids.Found, ids.Survived, percent(ids.Survived, ids.Found), ids.Appended, ids.Dropped)
	}
	row("peak prompt", "~%d est / %d provider", peakEst, peakProvider)
	row("final prompt", "~%d est / %d provider; ~%d without compaction", last.est, last.provider, last.shadow)
	failNone := 0
	if res.compared != nil {
		failNone, _ = res.compared.overflow(res.compared.none)
	}
	if failNone > 0 {
		row("prompt tokens, all", "~%d est with compaction; without it the run would have failed at call %d (below); provider: %d prompt + %d completion%s",
			est, failNone, provider, completion, onlyIf(res.replay, " (computed by the replay)"))
	} else {
		row("prompt tokens, all", "~%d est with compaction vs ~%d without (%s saved; %s counting the summarizer's %d tokens too); provider: %d prompt + %d completion%s",
			est, shadow, percent(shadow-est, shadow), percent(shadow-est-sumPrompt-sumCompletion, shadow), sumPrompt+sumCompletion,
			provider, completion, onlyIf(res.replay, " (computed by the replay)"))
	}
	if res.compared != nil {
		res.compared.write(w, row)
	}
	row("wall time", "%s", res.elapsed.Round(time.Millisecond))
	if len(r.compactions) == 0 {
		return
	}
	fmt.Fprintf(w, "\n  %2s  %-7s  %8s  %-8s  %5s  %8s  %-12s  %6s  %10s  %-16s  %s\n", "#", "before", "replaced", "messages", "call", "overhead",
		"tokens", "target", "summarizer", "waited", "what (tier of each summarizer round, or strategy)")
	for i, c := range r.compactions {
		fmt.Fprintf(w, "  %2d  %-7s  %8d  %-8s  %5d  %8d  %-12s  %6d  %10s  %-16s  %s\n", i+1, fmt.Sprintf("step %d", c.beforeStep), c.replaced,
			fmt.Sprintf("%d → %d", c.msgsBefore, c.msgsAfter), c.est, c.overhead, fmt.Sprintf("%d → %d", c.tokBefore, c.tokAfter), c.tgt,
			ms(c.latency), waitedShort(c), c.tiers)
	}
}

// summarizerTokensSource says whose count the summarizer's tokens are.
// Offline they are the extractive summarizer's own estimate. Online, the
// failover chain reports as one model: a round its offline fallback wrote
// carries that estimate, not the remote model's usage, and the report
// cannot tell those rounds apart, so the line says so.
func summarizerTokensSource(res runSummary) string {
	switch {
	case res.offlineSummarizer:
		return " (its own count, 4 characters a token: no model ran)"
	case res.fallbackOffline:
		return " (as the endpoint reported them, except rounds the offline fallback wrote: its own count, 4 characters a token)"
	}
	return " (as the endpoint reported them)"
}

// runSummary is what the summary needs from outside the reporter.
type runSummary struct {
	model, summarizer, exit string
	// replay: the "provider" numbers are the replay's own arithmetic;
	// offlineSummarizer: the summarizer's tokens are its own count.
	replay, offlineSummarizer bool
	// fallbackOffline: an online summarizer falls back to the offline one.
	fallbackOffline bool
	window, target  int
	trigger         float64
	toolCalls       map[string]int
	elapsed         time.Duration
	// compared: the run next to Eino's middleware and no compaction; nil
	// when the run's summarizer is not the offline one (see runner.run).
	compared *comparison
}

func usage(m *schema.Message) *schema.TokenUsage {
	if m.ResponseMeta == nil {
		return nil
	}
	return m.ResponseMeta.Usage
}

// describe names a model reply in a few words: the tools it calls with their
// main argument, or that it answered.
func describe(m *schema.Message) string {
	if len(m.ToolCalls) == 0 {
		return fmt.Sprintf("answer (%d chars)", len([]rune(m.Content)))
	}
	parts := make([]string, 0, len(m.ToolCalls))
	for _, c := range m.ToolCalls {
		var args map[string]any
		_ = json.Unmarshal([]byte(c.Function.Arguments), &args)
		arg := ""
		for _, k := range []string{"path", "pattern", "dir"} {
			if v, ok := args[k].(string); ok && v != "" {
				arg = " " + v
				break
			}
		}
		parts = append(parts, c.Function.Name+arg)
	}
	return strings.Join(parts, "; ")
}

// legend explains the columns and names of the step and compaction lines.
// Offline, the "provider" numbers and the summarizer's tokens come from no
// provider or model, and it says so.
func legend(w io.Writer, replay, offlineSummarizer bool) {
	provider := "prompt tokens the model's reply reports"
	if replay {
		provider = "prompt tokens computed by the replay itself (~3.6 characters a token, a few per message): no provider counts them offline"
	}
	fmt.Fprintf(w, "legend\n")
	line := func(k, v string) { fmt.Fprintf(w, "  %-12s %s\n", k, v) }
	line("est", "prompt tokens of all that was sent, by the local approximate counter (the hook counts only what is new since the last reply's usage)")
	line("provider", provider)
	line("uncompacted", "the local estimate of the same conversation had nothing been compacted")
	line("tiers", "what each summarizer round replaced: "+compaction.TierHistoricalTurns+" (old user turns), "+
		compaction.TierHistoricalSummaries+" (old summaries merged),")
	line("", compaction.TierCurrentTaskSteps+" (the current task's older agent steps), "+
		compaction.TierCurrentTaskSummaries+" (the current task's summaries merged)")
	if offlineSummarizer {
		line("summarizer", "the offline extractive summarizer reports prompt + completion tokens it counts itself (4 characters a token)")
	}
	line("call", "the coming model call as the hook estimated it (messages + overhead); a compaction runs once it reaches the trigger")
	line("overhead", "what the call takes beyond the messages' local count: the tool schemas, plus what the provider's usage showed it counts")
	line("", "beyond the local count; the messages' target is compact_to of the window less this overhead")
	line("tokens", "the messages' local count, before → after the compaction")
	line("waited", "how long the model call waited for the compaction; \"prepared\": computed in the background from prepare_at,")
	line("", "so the call only waited for what was left of it: with a summarizer as fast as the offline one that is about nothing;")
	line("", "with --summarizer-latency 1s --model-latency 300ms calls wait for the rest of the summary")
	fmt.Fprintln(w)
}

func onlyIf(cond bool, s string) string {
	if cond {
		return s
	}
	return ""
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000)
}

func percent(part, whole int) string {
	if whole <= 0 {
		return "0%"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(part)/float64(whole))
}

func sumCalls(m map[string]int) int { return lo.Sum(lo.Values(m)) }

func callList(m map[string]int) string {
	names := slices.Sorted(maps.Keys(m))
	parts := make([]string, 0, len(names))
	for _, k := range names {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// waited says how long the model call waited for a compaction and whether
// the compaction had been prepared in the background (prepare_at), and
// whether another hook wrote it and this one took it from the store.
func waited(c compactionStat) string {
	if w := origin(c); w != "" {
		return ms(c.stall) + " (" + w + ")"
	}
	return ms(c.stall)
}

// waitedShort is waited for the summary table.
func waitedShort(c compactionStat) string {
	if w := origin(c); w != "" {
		return ms(c.stall) + " " + w
	}
	return ms(c.stall)
}

// origin is "shared" for a compaction taken from the store, "prepared"
// for one prepared in the background here, else "".
func origin(c compactionStat) string {
	switch {
	case c.shared:
		return "shared"
	case c.prepared:
		return "prepared"
	}
	return ""
}

// roomText says how much room below the trigger a compaction bought, in
// steps of the run's median step, and what the hook did about too little.
func roomText(c compactionStat) string {
	s := fmt.Sprintf("room %.1f steps of ~%d below the trigger", c.room, c.growth)
	switch {
	case c.deeper:
		s += " (went deeper: the first result left less than two)"
	case c.noRoom && c.prepared:
		s += " (less than two: the rest is prepared in the background and applied from the ceiling on)"
	case c.noRoom:
		s += " (less than two and nothing deeper allowed: not compacted again below the ceiling)"
	}
	return s
}

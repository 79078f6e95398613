package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// explainAbove tells, after the table, why a compaction left the messages
// above the target it was given, and what the result is made of: the
// verbatim messages before the first compacted message, the compacted
// (marked) ones, and the verbatim ones after the last. It writes nothing
// when nothing was compacted or the result is within the target.
func explainAbove(ctx context.Context, w io.Writer, rep compaction.Report, strategy string, window int,
	result []*schema.Message, counter compaction.TokenCounter) error {
	if !rep.Compacted || rep.Target <= 0 || rep.TokensAfter <= rep.Target {
		return nil
	}
	first, last, kinds := -1, -1, map[string]int{}
	for i, m := range result {
		if mk, ok := compaction.MarkerOf(m); ok {
			if first < 0 {
				first = i
			}
			last = i
			kinds[mk.Strategy]++
		}
	}
	var front, middle, marked, tail []*schema.Message
	if first < 0 {
		tail = result
	} else {
		front, tail = result[:first], result[last+1:]
		for _, m := range result[first : last+1] {
			if _, ok := compaction.MarkerOf(m); ok {
				marked = append(marked, m)
			} else {
				middle = append(middle, m)
			}
		}
	}
	count := func(msgs []*schema.Message) (int, error) {
		if len(msgs) == 0 {
			return 0, nil
		}
		return counter.Count(ctx, msgs, nil)
	}
	tailTokens, err := count(tail)
	if err != nil {
		return err
	}

	over := rep.TokensAfter - rep.Target
	fmt.Fprintf(w, "\nabove target by %d tokens (%.0f %%): ", over, 100*float64(over)/float64(rep.Target))
	switch floor := rep.VerbatimFloor(); {
	case floor > 0 && tailTokens >= floor:
		fmt.Fprintf(w, "the deep compaction keeps the newest %d tokens (%.1f %% of the window) verbatim, in whole steps\n",
			floor, 100*float64(floor)/float64(window))
	case canonicalStrategy(strategy) == strategySummarize || strategy == strategyPipeline:
		fmt.Fprintln(w, "summarization never replaces the leading system messages, the latest user request or the newest step")
	default:
		fmt.Fprintf(w, "%s went no further\n", strategy)
	}

	var parts []string
	add := func(msgs []*schema.Message, what string) error {
		if len(msgs) == 0 {
			return nil
		}
		n, err := count(msgs)
		if err != nil {
			return err
		}
		parts = append(parts, fmt.Sprintf(what+" (%d tokens)", n))
		return nil
	}
	steps := []struct {
		msgs []*schema.Message
		what string
	}{
		{front, plural(len(front), "message") + " verbatim first"},
		{marked, markedKinds(kinds)},
		{middle, plural(len(middle), "message") + " verbatim between them"},
		{tail, newest(len(tail)) + " verbatim"},
	}
	for _, s := range steps {
		if err := add(s.msgs, s.what); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "the result holds: %s\n", strings.Join(parts, ", "))
	return nil
}

// markedKinds names the compacted messages of a result by the strategies
// their markers carry, e.g. "1 summary" or "2 summaries and 5 pruned tool
// results".
func markedKinds(kinds map[string]int) string {
	var names []string
	for _, k := range []string{compaction.StrategySummarization, compaction.StrategyToolResultPruning, compaction.StrategySlidingWindow} {
		if n := kinds[k]; n > 0 {
			names = append(names, markedName(k, n))
			delete(kinds, k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(kinds)) {
		names = append(names, markedName(k, kinds[k]))
	}
	return strings.Join(names, " and ")
}

func markedName(strategy string, n int) string {
	switch strategy {
	case compaction.StrategySummarization:
		if n == 1 {
			return "1 summary"
		}
		return fmt.Sprintf("%d summaries", n)
	case compaction.StrategyToolResultPruning:
		return plural(n, "pruned tool result")
	case compaction.StrategySlidingWindow:
		return plural(n, "sliding-window note")
	}
	return plural(n, strategy+" message")
}

// newest names the last n messages.
func newest(n int) string {
	if n == 1 {
		return "the newest message"
	}
	return fmt.Sprintf("the newest %d messages", n)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

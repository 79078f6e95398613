package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/cloudwego/eino/schema"
	"github.com/samber/lo"

	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/hooks/compaction/identifiers"
	"github.com/einocompact/einocompact/internal/spotlight"
)

// side describes one side of the before/after table.
type side struct {
	messages, tokens, toolCalls int
	text                        string // rendering with tool-call ids, to look identifiers up in
}

// describe measures msgs for the report: its size, tool calls and rendered
// text.
func describe(ctx context.Context, msgs []*schema.Message, counter compaction.TokenCounter) (side, error) {
	n, err := counter.Count(ctx, msgs, nil)
	if err != nil {
		return side{}, err
	}
	return side{
		messages:  len(msgs),
		tokens:    n,
		toolCalls: lo.SumBy(msgs, func(m *schema.Message) int { return len(m.ToolCalls) }),
		text:      compaction.Render(msgs, compaction.RenderOptions{ToolCallIDs: true}),
	}, nil
}

// writeTable prints the before/after comparison, the summarizer rounds and
// the markers of the result.
func writeTable(w io.Writer, before, after side, rep compaction.Report, result []*schema.Message) {
	ids := identifiers.Identifiers(before.text)
	var lost []string
	if after.text != before.text { // an unchanged transcript keeps every identifier
		// The library's survival rule: verbatim or marked as data.
		for i, kept := range spotlight.Kept(after.text, ids) {
			if !kept {
				lost = append(lost, ids[i])
			}
		}
	}
	kept := len(ids) - len(lost)

	row := func(name string, b, a int) { fmt.Fprintf(w, "%-12s %8d %8d\n", name, b, a) }
	fmt.Fprintf(w, "%-12s %8s %8s\n", "", "before", "after")
	row("messages", before.messages, after.messages)
	row("tokens", before.tokens, after.tokens)
	row("tool calls", before.toolCalls, after.toolCalls)
	row("identifiers", len(ids), kept)
	if len(lost) > 0 {
		shown := make([]string, 0, 5)
		for _, id := range firstN(lost, 5) {
			shown = append(shown, strconv.Quote(clip(id, 48)))
		}
		fmt.Fprintf(w, "identifiers lost: %s", strings.Join(shown, ", "))
		if len(lost) > 5 {
			fmt.Fprintf(w, " and %d more", len(lost)-5)
		}
		fmt.Fprintln(w)
	}

	if len(rep.Rounds) > 0 {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "round\ttier\treplaced\ttokens\ttime\toutcome")
		for i, r := range rep.Rounds {
			outcome := "ok"
			if r.Err != nil {
				outcome = "failed: " + r.Err.Error()
			}
			fmt.Fprintf(tw, "%d\t%s\t%d\t%d -> %d\t%s\t%s\n", i+1, r.Tier, len(r.Indices), r.TokensBefore, r.TokensAfter,
				latency(r.Latency), outcome)
		}
		tw.Flush()
	}

	markers := lo.CountValues(lo.FilterMap(result, func(m *schema.Message, _ int) (string, bool) {
		mk, ok := compaction.MarkerOf(m)
		return mk.Strategy, ok
	}))
	if len(markers) > 0 {
		parts := make([]string, 0, len(markers))
		for _, k := range slices.Sorted(maps.Keys(markers)) {
			parts = append(parts, fmt.Sprintf("%d %s", markers[k], k))
		}
		fmt.Fprintf(w, "\nmarked messages in the result: %s\n", strings.Join(parts, ", "))
	}
}

// latency formats a duration for the report with about three significant
// digits, so a fast offline round reads 42µs or 0.3ms rather than 0s.
func latency(d time.Duration) string {
	if d < time.Millisecond {
		return d.Round(time.Microsecond).String()
	}
	if d < time.Second {
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	}
	return d.Round(10 * time.Millisecond).String()
}

func firstN(s []string, n int) []string { return s[:min(n, len(s))] }

// clip shortens s to n characters, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// sameMessages reports whether b holds exactly a's messages, as when the hook
// left the transcript alone; the report then reuses a's description rather
// than render and count megabytes again.
func sameMessages(a, b []*schema.Message) bool {
	return slices.Equal(a, b) // pointers: the library never changes a message in place
}

package inspect

import (
	"context"
	"fmt"
	"html"
	"log/slog"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
)

var (
	tags   = regexp.MustCompile(`<[^>]*>`)
	spaces = regexp.MustCompile(`\s+`)
)

// textOf is HTML as text: tags removed, entities decoded, white space
// collapsed.
func textOf(h string) string {
	return strings.TrimSpace(spaces.ReplaceAllString(html.UnescapeString(tags.ReplaceAllString(h, " ")), " "))
}

// writePage is conversation id's page as WriteHTML writes it.
func writePage(t *testing.T, rec *Recorder, id string) string {
	t.Helper()
	var b strings.Builder
	if err := rec.WriteHTML(&b, id); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// rowText is the text of the row of the compaction before call n.
func rowText(t *testing.T, page string, n int) string {
	t.Helper()
	at := strings.Index(page, `<details class="row k-`)
	id := strings.Index(page, ` id="`+anchor(n)+`"`)
	if at < 0 || id < 0 {
		t.Fatalf("no row for call %d on the page", n)
	}
	start := strings.LastIndex(page[:id], "<details")
	end := id + strings.Index(page[id:], "</details>")
	return textOf(page[start:end])
}

// markerKinds are the data-kind values of the chart's markers, in order.
func markerKinds(page string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<a class="marker [^"]*" href="[^"]*" data-kind="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		out = append(out, m[1])
	}
	return out
}

func TestEveryOutcomeHasItsOwnMarker(t *testing.T) {
	t.Parallel()
	all := []string{KindSynchronous, KindPrepared, KindDeferred, KindFailed, KindDeclined, KindBackedOff, KindHeld, KindFallback, KindUnprofitable}
	if got := slices.Sorted(slices.Values(kinds)); !reflect.DeepEqual(got, slices.Sorted(slices.Values(all))) {
		t.Fatalf("the legend lists %v, want every outcome %v", kinds, all)
	}
	seen := map[string]string{}
	for _, k := range all {
		d := shape(k, 50, 50)
		if other, ok := seen[d]; ok {
			t.Errorf("%s and %s share the marker %q", k, other, d)
		}
		seen[d] = k
		if !strings.Contains(styleSheet, ".k-"+k+" path") || !strings.Contains(styleSheet, ".k-"+k+" .sw") {
			t.Errorf("the stylesheet does not style the %s marker and its legend swatch", k)
		}
	}
}

func TestOutcomeKindsOfFallbackAndPrices(t *testing.T) {
	t.Parallel()
	down := fmt.Errorf("summarizer: %s", downMessage)
	tests := []struct {
		name string
		rep  compaction.Report
		want string
	}{
		{"fallback after a failed summary", compaction.Report{Triggered: true, Compacted: true, Err: down, Fallback: compaction.StrategyToolResultPruning}, KindFallback},
		{"fallback after a failed prepared one", compaction.Report{Triggered: true, Compacted: true, Prepared: true, Err: down,
			Fallback: compaction.StrategyToolResultPruning + "+" + compaction.StrategySlidingWindow}, KindFallback},
		{"failure the fallback did not follow", compaction.Report{Triggered: true, Err: down}, KindFailed},
		{"unprofitable", compaction.Report{Triggered: true, Unprofitable: true}, KindUnprofitable},
	}
	for _, tc := range tests {
		rec := newRecord(tc.rep, nil)
		if rec.Kind != tc.want || rec.Fallback != tc.rep.Fallback || rec.Unprofitable != tc.rep.Unprofitable || rec.Applied != tc.rep.Compacted {
			t.Errorf("%s: kind %q fallback %q unprofitable %v applied %v; want %q and the report's fields", tc.name, rec.Kind, rec.Fallback, rec.Unprofitable, rec.Applied, tc.want)
		}
	}
}

// TestFallbackIsShown drives a real hook whose summarizer endpoint is down
// past the window: the hook falls back, and the page marks that call as a
// fallback whose row names the stages and the summarizer's error, and,
// with capture on, what the fallback removed, redacted.
func TestFallbackIsShown(t *testing.T) {
	t.Parallel()
	const secret = "sk-live-0123456789abcdef"
	tool := func(n int) string { return "TOOLTEXT-5e2 " + secret + " " + longText(n) }
	// Small tool results are too small to prune: the sliding window runs.
	// Large ones in a larger window are pruned.
	small := run{steps: 40, toolText: tool(600), down: true}
	large := run{steps: 40, window: 8000, toolText: tool(2400), down: true}
	tests := []struct {
		name string
		cfg  Config
		run  run
		// stage is a stage that must have run, else the case proves nothing.
		stage string
		// text: what the fallback removed is kept in memory and shown.
		text bool
		note string
	}{
		{"capture off", Config{}, small, compaction.StrategySlidingWindow, false, "Content capture is off: what the fallback removed was not kept."},
		{"capture on, sliding window", Config{CaptureContent: true}, small, compaction.StrategySlidingWindow, true, ""},
		{"capture on, pruning", Config{CaptureContent: true}, large, compaction.StrategyToolResultPruning, true, ""},
		{"capture on, text over the bound", Config{CaptureContent: true, MaxContentBytes: 1000}, small, compaction.StrategySlidingWindow, false, fallbackTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := newTestRecorder(t, &tc.cfg)
			res := tc.run.drive(t, rec, "down")
			s, _ := rec.snapshot("down")
			if len(s.Compactions) != len(res.reports) {
				t.Fatalf("%d compactions recorded, the hook reported %d", len(s.Compactions), len(res.reports))
			}
			page := writePage(t, rec, "down")
			kinds := markerKinds(page)
			fellBack, ranStage := 0, false
			for i, rep := range res.reports {
				r := s.Compactions[i]
				if rep.Fallback == "" {
					if r.Kind == KindFallback || kinds[i] == KindFallback {
						t.Errorf("compaction %d ran no fallback, recorded %q, marker %q", i, r.Kind, kinds[i])
					}
					continue
				}
				fellBack++
				ranStage = ranStage || strings.Contains(rep.Fallback, tc.stage)
				if r.Kind != KindFallback || kinds[i] != KindFallback || r.Fallback != rep.Fallback {
					t.Errorf("compaction %d ran %q: recorded %q (%q), marker %q", i, rep.Fallback, r.Kind, r.Fallback, kinds[i])
				}
				row := rowText(t, page, r.Call)
				stages := strings.ReplaceAll(rep.Fallback, "+", " then ")
				for _, want := range []string{"Model-free fallback: " + stages, downMessage, "fallback: " + stages} {
					if !strings.Contains(row, want) {
						t.Errorf("the row of call %d does not say %q:\n%s", r.Call, want, row)
					}
				}
				for k, rd := range r.Rounds {
					// A failed round wrote no summary: no size after it.
					want := fmt.Sprintf("Round %d: tier %s, %s request, %d message(s) not replaced: it failed at %d tokens", k+1, rd.Tier, rd.Shape, rd.Replaced, rd.TokensBefore)
					if rd.Err == "" || !strings.Contains(row, want) {
						t.Errorf("round %d of call %d (error %q): the row does not say %q:\n%s", k+1, r.Call, rd.Err, want, row)
					}
				}
				if tc.note != "" && !strings.Contains(row, tc.note) {
					t.Errorf("the row of call %d lacks the note %q:\n%s", r.Call, tc.note, row)
				}
				fc := r.FallbackContent
				if !tc.text {
					if fc != nil && fc.Note == "" {
						t.Errorf("compaction %d kept the fallback's text %+v", i, fc)
					}
					continue
				}
				if fc == nil || fc.Note != "" {
					t.Fatalf("compaction %d: fallback content %+v, want its text", i, fc)
				}
				removed := strings.Join(fc.Removed, "\n")
				if !strings.Contains(removed, "TOOLTEXT-5e2") || !strings.Contains(removed, "xxxxx") {
					t.Errorf("compaction %d: the fallback removed %d message(s), none a redacted tool result:\n%.400s", i, len(fc.Removed), removed)
				}
				if !strings.Contains(row, "Removed ("+fmt.Sprint(len(fc.Removed))+")") || !strings.Contains(row, "TOOLTEXT-5e2") {
					t.Errorf("the row of call %d does not show what the fallback removed", r.Call)
				}
				if rep.Fallback == compaction.StrategyToolResultPruning {
					// Each pruned result stands in for its original, without
					// its text.
					if len(fc.Added) != len(fc.Removed) {
						t.Errorf("compaction %d pruned %d tool results but shows %d put in their place", i, len(fc.Removed), len(fc.Added))
					}
					for _, a := range fc.Added {
						if strings.Contains(a, "TOOLTEXT-5e2") {
							t.Errorf("compaction %d: %.200q was put in, yet holds the tool text", i, a)
						}
					}
				}

			}
			if fellBack == 0 || !ranStage {
				t.Fatalf("%d of %d compactions fell back, %s never ran: the case proves nothing", fellBack, len(res.reports), tc.stage)
			}
			var mem []string
			reachableStrings(reflect.ValueOf(rec), map[uintptr]bool{}, &mem)
			memory := strings.Join(mem, "\n")
			if strings.Contains(memory, secret) || strings.Contains(page, secret) {
				t.Error("the API key is in memory or on the page")
			}
			if got := strings.Contains(memory, "TOOLTEXT-5e2"); got != tc.text {
				t.Errorf("tool text in memory: %v, want %v", got, tc.text)
			}
		})
	}
}

// charCounter counts a character as a token, tool calls' arguments
// included.
var charCounter = compaction.TokenCounterFunc(func(_ context.Context, msgs []*schema.Message, _ []*schema.ToolInfo) (int, error) {
	n := 0
	for _, m := range msgs {
		n += len(m.Content) + 4
		for _, tc := range m.ToolCalls {
			n += len(tc.Function.Arguments) + len(tc.Function.Name)
		}
	}
	return n, nil
})

// TestUnprofitableIsShown: under Prices, a compaction that saves little at
// the trigger is not applied; the recorder files it as unprofitable, draws
// it so and says why, while the same compaction without Prices is applied
// and its row shows the cached prefix it invalidated.
func TestUnprofitableIsShown(t *testing.T) {
	t.Parallel()
	// Drops the oldest tool step: a small saving.
	dropOldest := compaction.CompactorFunc(func(_ context.Context, msgs []*schema.Message, _ int, _ compaction.TokenCounter) ([]*schema.Message, error) {
		return append(slices.Clone(msgs[:2]), msgs[4:]...), nil
	})
	tests := []struct {
		name   string
		prices *compaction.Prices
		kind   string
	}{
		{"no prices: applied", nil, KindSynchronous},
		{"OpenAI-like prices: not applied", &compaction.PricesOpenAI, KindUnprofitable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := WithConversation(context.Background(), "priced")
			hook, err := compaction.NewCompactionHook(ctx, &compaction.HookConfig{Compactor: dropOldest, ContextWindow: 10000,
				TokenCounter: charCounter, Prices: tc.prices, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			rec := newTestRecorder(t, nil)
			w, err := rec.Wrap(hook)
			if err != nil {
				t.Fatal(err)
			}
			msgs := []*schema.Message{schema.SystemMessage("rules"), schema.UserMessage("task")}
			for i := 0; i < 34; i++ {
				id := fmt.Sprintf("s%d", i)
				msgs = append(msgs, &schema.Message{Role: schema.Assistant, ToolCalls: []schema.ToolCall{{ID: id, Function: schema.FunctionCall{Name: "read"}}}},
					schema.ToolMessage(strings.Repeat("z", 200), id))
			}
			rep, err := w.Decide(ctx, &hooks.State{Messages: msgs})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Unprofitable != (tc.kind == KindUnprofitable) || rep.Compacted == rep.Unprofitable {
				t.Fatalf("the hook reported compacted %v unprofitable %v: the case proves nothing", rep.Compacted, rep.Unprofitable)
			}
			s, _ := rec.snapshot("priced")
			r := s.Compactions[0]
			page := writePage(t, rec, "priced")
			row := rowText(t, page, r.Call)
			if r.Kind != tc.kind || !reflect.DeepEqual(markerKinds(page), []string{tc.kind}) {
				t.Errorf("recorded %q, markers %v; want %q", r.Kind, markerKinds(page), tc.kind)
			}
			if tc.kind == KindUnprofitable {
				for _, want := range []string{"Not applied: under the hook's prices", fmt.Sprintf("%d, not applied", rep.TokensBefore)} {
					if !strings.Contains(row, want) {
						t.Errorf("the row does not say %q:\n%s", want, row)
					}
				}
				if strings.Contains(row, "It invalidated") {
					t.Errorf("a compaction not applied claims to have invalidated the cache:\n%s", row)
				}
				return
			}
			if rep.InvalidatedTokens <= 0 || r.InvalidatedTokens != rep.InvalidatedTokens {
				t.Fatalf("the hook reported %d invalidated tokens, the recorder %d", rep.InvalidatedTokens, r.InvalidatedTokens)
			}
			if want := fmt.Sprintf("It invalidated %d tokens of the provider's cached prefix", rep.InvalidatedTokens); !strings.Contains(row, want) {
				t.Errorf("the row does not say %q:\n%s", want, row)
			}
		})
	}
}

// TestRoundsShowShapeAndCachedTokens: a summarizer whose provider reports
// cached prompt tokens; each round says its request shape and the cached
// tokens, and the row's summarizer cell their sum.
func TestRoundsShowShapeAndCachedTokens(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		cached int
		want   string
	}{
		{"cached tokens reported", 120, "read 300 (120 from the provider's cache)"},
		{"none reported", 0, "read 300 (no cached tokens reported)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := newTestRecorder(t, nil)
			res := run{steps: 30, toolText: longText(600), summary: "Logs read.", cached: tc.cached}.drive(t, rec, "c")
			s, _ := rec.snapshot("c")
			if len(s.Compactions) == 0 || len(s.Compactions) != len(res.reports) {
				t.Fatalf("%d compactions recorded, %d reported", len(s.Compactions), len(res.reports))
			}
			page := writePage(t, rec, "c")
			for i, r := range s.Compactions {
				if len(r.Rounds) == 0 {
					t.Fatalf("compaction %d has no round", i)
				}
				row := rowText(t, page, r.Call)
				for k, rd := range r.Rounds {
					if rd.Shape != compaction.ShapeTranscript || rd.CachedTokens != tc.cached {
						t.Errorf("compaction %d round %d: shape %q, %d cached; want %q, %d", i, k, rd.Shape, rd.CachedTokens, compaction.ShapeTranscript, tc.cached)
					}
					for _, want := range []string{fmt.Sprintf("Round %d: tier %s, %s request,", k+1, rd.Tier, compaction.ShapeTranscript), tc.want} {
						if !strings.Contains(row, want) {
							t.Errorf("the row of call %d does not say %q:\n%s", r.Call, want, row)
						}
					}
				}
				cell := fmt.Sprintf("%d in / %d out", 300*len(r.Rounds), 40*len(r.Rounds))
				if tc.cached > 0 {
					cell = fmt.Sprintf("%d in (%d cached) / %d out", 300*len(r.Rounds), tc.cached*len(r.Rounds), 40*len(r.Rounds))
				}
				if !strings.Contains(row, cell) {
					t.Errorf("the row of call %d does not say %q:\n%s", r.Call, cell, row)
				}
			}
		})
	}
}

// A deep compaction (Report.Deep, the hook's default) says so in its row's
// tiers and detail; with AimAtCompactTo no row does.
func TestDeepCompactionIsShown(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		aim  bool
	}{
		{"default hook", false},
		{"AimAtCompactTo", true},
	}
	const detail = "Deep compaction: the newest fifth of the window was kept verbatim"
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := newTestRecorder(t, nil)
			res := run{steps: 30, toolText: longText(600), summary: "Logs read.", aim: tc.aim}.drive(t, rec, "c")
			s, _ := rec.snapshot("c")
			if len(s.Compactions) == 0 || len(s.Compactions) != len(res.reports) {
				t.Fatalf("%d compactions recorded, %d reported", len(s.Compactions), len(res.reports))
			}
			page := writePage(t, rec, "c")
			for i, r := range s.Compactions {
				if r.Deep != res.reports[i].Deep || r.Deep == tc.aim {
					t.Errorf("compaction %d: recorded deep %v, reported %v; want %v", i, r.Deep, res.reports[i].Deep, !tc.aim)
				}
				row := rowText(t, page, r.Call)
				if got := strings.Contains(row, detail) && strings.Contains(row, "deep, "); got != !tc.aim {
					t.Errorf("the row of call %d says deep: %v, want %v:\n%s", r.Call, got, !tc.aim, row)
				}
			}
		})
	}
}

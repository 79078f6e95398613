package inspect

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// hostile is content written to run script, load something or disguise
// itself, were the page to let it.
const hostile = `<script>window.__pwned=1</script><img src=x onerror="window.__pwned=1">` +
	`<a href="javascript:window.__pwned=1">x</a></textarea><style>body{display:none}</style>` +
	"\u202eexe.txt\u202c"

// TestConversationPageInBrowser drives headless chromium (one browser for
// all subtests) over pages of real runs.
func TestConversationPageInBrowser(t *testing.T) {
	ctx := browser(t)

	t.Run("a 10,000-message conversation loads", func(t *testing.T) {
		t.Parallel()
		rec := newTestRecorder(t, &Config{CaptureContent: true, MaxContentBytes: 8 << 20})
		messages := recordLarge(t, rec, "large", 50, 200, 100)
		tb := newTab(t, ctx)
		tb.open(t, serve(t, rec, "large"))
		if n := eval[int](t, tb, `document.body.textContent.match(/message \d+ of round \d+/g).length`); n != messages {
			t.Fatalf("the page shows %d replaced messages, want %d", n, messages)
		}
		// How long it took is BenchmarkConversationPageInBrowser's to
		// measure; here only that the load event ran to its end.
		if !eval[bool](t, tb, `performance.getEntriesByType('navigation')[0].loadEventEnd > 0`) {
			t.Fatal("the page's load event has not ended")
		}
	})

	t.Run("one marker per compaction, expandable rows", func(t *testing.T) {
		t.Parallel()
		rec := newTestRecorder(t, &Config{CaptureContent: true})
		summary := "The agent read the build logs of service-7; every package compiled."
		res := run{steps: 60, toolText: longText(600), summary: summary}.drive(t, rec, "build")
		if len(res.reports) < 3 {
			t.Fatalf("the run compacted %d times; the test needs several", len(res.reports))
		}
		tb := newTab(t, ctx)
		tb.open(t, serve(t, rec, "build"))
		kinds := eval[[]string](t, tb, `[...document.querySelectorAll('svg.chart .marker')].map(m => m.dataset.kind)`)
		if len(kinds) != len(res.reports) {
			t.Fatalf("%d markers on the chart, the hook reported %d compactions", len(kinds), len(res.reports))
		}
		for i, rep := range res.reports {
			if !rep.Compacted || rep.Prepared || kinds[i] != KindSynchronous {
				t.Errorf("compaction %d: compacted=%v prepared=%v, marker %q", i, rep.Compacted, rep.Prepared, kinds[i])
			}
		}
		if n := eval[int](t, tb, `document.querySelectorAll('details.row').length`); n != len(res.reports) {
			t.Errorf("%d rows, want %d", n, len(res.reports))
		}
		// Nothing would tell a reader the rows open without a mark on each
		// and a line saying what a row holds (issue 31 item 14).
		mark := `getComputedStyle(document.querySelector('details.row > summary'), '::before').content`
		if m := eval[string](t, tb, mark); m != `"▸"` {
			t.Errorf("a closed row's disclosure mark is %s, want \"▸\"", m)
		}
		hint := eval[string](t, tb, `(document.querySelector('.rows-hint') || {}).innerText || ''`)
		for _, w := range []string{"opens", "summarizer round", "replaced", "summary"} {
			if !strings.Contains(hint, w) {
				t.Errorf("the line above the rows %q does not say %q", hint, w)
			}
		}
		shown := `(() => { const s = document.querySelector('details.row .summary-text'); return s.getClientRects().length > 0 && s.innerText.includes(%q) })()`
		if eval[bool](t, tb, fmt.Sprintf(shown, summary)) {
			t.Fatal("the first row's summary is visible before the row is expanded")
		}
		// Expand it with the keyboard: focus its summary, press Enter.
		if err := chromedp.Do(tb.ctx, chromedp.Focus("details.row > summary"), chromedp.KeyEvent("\r")); err != nil {
			t.Fatal(err)
		}
		if !eval[bool](t, tb, fmt.Sprintf(shown, summary)) {
			t.Fatal("expanding the first row does not show its summary")
		}
		if m := eval[string](t, tb, mark); m != `"▾"` {
			t.Errorf("an open row's disclosure mark is %s, want \"▾\"", m)
		}
	})

	t.Run("prepared compactions are marked as such", func(t *testing.T) {
		t.Parallel()
		rec := newTestRecorder(t, &Config{})
		res := run{steps: 60, toolText: longText(600), summary: "Logs read.", prepareAt: 0.55}.drive(t, rec, "prepared")
		prepared := 0
		for _, rep := range res.reports {
			if rep.Compacted && rep.Prepared && rep.Err == nil {
				prepared++
			}
		}
		if prepared == 0 {
			t.Fatalf("no prepared compaction among %d reports", len(res.reports))
		}
		tb := newTab(t, ctx)
		tb.open(t, serve(t, rec, "prepared"))
		if n := eval[int](t, tb, `document.querySelectorAll('svg.chart .marker').length`); n != len(res.reports) {
			t.Errorf("%d markers, the hook reported %d compactions", n, len(res.reports))
		}
		if n := eval[int](t, tb, `document.querySelectorAll('svg.chart .marker[data-kind=prepared]').length`); n != prepared {
			t.Errorf("%d prepared markers, want %d", n, prepared)
		}
		if n := eval[int](t, tb, `document.querySelectorAll('svg.chart line.l-prepare-at, svg.chart line.l-ceiling').length`); n != 2 {
			t.Errorf("%d PrepareAt and ceiling lines, want 2", n)
		}
	})

	t.Run("a fallback after a dead summarizer is marked and named", func(t *testing.T) {
		t.Parallel()
		rec := newTestRecorder(t, &Config{CaptureContent: true})
		res := run{steps: 40, toolText: longText(600), down: true}.drive(t, rec, "dead")
		// What each marker must be, from the hook's own reports.
		var want []string
		var fallback compaction.Report
		for _, rep := range res.reports {
			switch {
			case rep.Fallback != "":
				want = append(want, KindFallback)
				fallback = rep
			case rep.BackedOff:
				want = append(want, KindBackedOff)
			case rep.Err != nil:
				want = append(want, KindFailed)
			default:
				want = append(want, "unexpected")
			}
		}
		if fallback.Fallback == "" {
			t.Fatalf("none of %d compactions fell back: the test proves nothing", len(res.reports))
		}
		tb := newTab(t, ctx)
		tb.open(t, serve(t, rec, "dead"))
		kinds := eval[[]string](t, tb, `[...document.querySelectorAll('svg.chart .marker')].map(m => m.dataset.kind)`)
		if !slices.Equal(kinds, want) {
			t.Errorf("markers %v, want %v", kinds, want)
		}
		if !eval[bool](t, tb, `document.querySelector('.legend li.k-fallback') !== null`) {
			t.Error("the legend has no fallback entry")
		}
		// Drawn apart from a plain failure by more than its shape.
		styled := `(() => { const f = getComputedStyle(document.querySelector('.marker.k-fallback path')).stroke,
			x = getComputedStyle(document.querySelector('.marker.k-failed path')).stroke,
			l = getComputedStyle(document.querySelector('.legend li.k-fallback .sw')).stroke;
			return f !== x && f === l })()`
		if !eval[bool](t, tb, styled) {
			t.Error("the fallback marker's color is a failure's, or not its legend's")
		}
		// The marker links to its row; open that row with the keyboard.
		row := eval[string](t, tb, `document.querySelector('.marker.k-fallback').getAttribute('href').slice(1)`)
		if err := chromedp.Do(tb.ctx, chromedp.Focus(`details.row#`+row+` > summary`), chromedp.KeyEvent("\r")); err != nil {
			t.Fatal(err)
		}
		text := eval[string](t, tb, `document.getElementById('`+row+`').innerText`)
		stages := strings.ReplaceAll(fallback.Fallback, "+", " then ")
		for _, s := range []string{"Model-free fallback: " + stages, downMessage, "Fallback: " + stages, "Removed ("} {
			if !strings.Contains(text, s) {
				t.Errorf("the opened fallback row does not show %q:\n%s", s, text)
			}
		}
	})

	t.Run("hostile content stays inert", func(t *testing.T) {
		t.Parallel()
		rec := newTestRecorder(t, &Config{CaptureContent: true})
		long := strings.Repeat("A", 3000)
		id := `conv` + hostile
		run{steps: 24, toolText: longText(400) + hostile + long, summary: "Summary " + hostile + long}.drive(t, rec, id)
		file := filepath.Join(t.TempDir(), "page.html")
		f, err := os.Create(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := rec.WriteHTML(f, id); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		page := serve(t, rec, id)
		index := page[:strings.Index(page, "conversation?")]
		for _, u := range []string{page, index, "file://" + file} {
			tb := newTab(t, ctx)
			tb.open(t, u)
			// Open every row, so that all captured text is laid out.
			eval[int](t, tb, `(() => { const d = document.querySelectorAll('details'); d.forEach(x => x.open = true); return d.length })()`)
			checks := []struct{ what, js string }{
				{"the payload set no flag", `typeof window.__pwned === 'undefined'`},
				{"no element came from content", `document.querySelectorAll('script, img, textarea, body style, a[href^="javascript"]').length === 0`},
				{"the payload is shown as text", `document.body.innerText.includes('<script>window.__pwned=1</script>')`},
				{"bidi overrides are shown, not applied", `!document.body.innerText.includes('\u202e') && document.body.innerText.includes('⟨RLO⟩')`},
				{"long lines wrap", `document.documentElement.scrollWidth <= window.innerWidth`},
				{"the page is visible", `getComputedStyle(document.body).display !== 'none'`},
			}
			for _, c := range checks {
				if !eval[bool](t, tb, c.js) {
					t.Errorf("%s: not %s (%s)", u, c.what, c.js)
				}
			}
		}
	})

}

// recordLarge files a conversation of compactions×perRound replaced
// messages, callsPer model calls between compactions, as a wrapped hook
// would; it returns the number of replaced messages.
func recordLarge(t testing.TB, rec *Recorder, id string, compactions, perRound, callsPer int) int {
	t.Helper()
	limits := compaction.Limits{ContextWindow: 100000, CompactAt: 0.7, CompactTo: 0.4}
	sys := schema.SystemMessage("system")
	for k := range compactions {
		for c := range callsPer - 1 {
			rec.record(id, &limits, compaction.Report{Step: k*callsPer + c, Estimated: 40000 + c*300}, nil, nil, nil)
		}
		before := []*schema.Message{sys}
		idx := make([]int, perRound)
		for i := range perRound {
			before = append(before, schema.UserMessage(fmt.Sprintf("message %d of round %d: %s", i, k, longText(120))))
			idx[i] = i + 1
		}
		summary := summaryMessage(fmt.Sprint("round ", k), perRound)
		rep := compaction.Report{Step: k*callsPer + callsPer - 1, Estimated: 72000, Trigger: 70000, Triggered: true, Compacted: true, Target: 40000,
			MessagesBefore: len(before), MessagesAfter: 2, TokensBefore: 71000, TokensAfter: 30000,
			Rounds: []compaction.Round{{Tier: compaction.TierHistoricalTurns, Indices: idx, TokensBefore: 71000, TokensAfter: 30000}}}
		rec.record(id, &limits, rep, nil, before, []*schema.Message{sys, summary})
	}
	return compactions * perRound
}

func newTestRecorder(t testing.TB, cfg *Config) *Recorder {
	t.Helper()
	rec, err := NewRecorder(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

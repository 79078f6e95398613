package inspect

import (
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
)

// overlaps lists, for every line of the table of triggered calls (its head
// and each row's summary), the cells whose text overlaps the next cell's
// or reaches out of the table.
const overlaps = `(() => {
	const out = [], table = document.querySelector('.rows').getBoundingClientRect();
	const lines = document.querySelectorAll('.rows .grid');
	for (const line of lines) {
		const cells = [...line.children].map(c => {
			const r = document.createRange();
			r.selectNodeContents(c);
			const b = r.getBoundingClientRect();
			return {text: c.innerText, left: b.left, right: b.right};
		});
		cells.forEach((c, i) => {
			if (c.left < table.left || c.right > table.right) out.push('"' + c.text + '" reaches out of the table');
			if (i > 0 && c.left < cells[i-1].right) out.push('"' + cells[i-1].text + '" overlaps "' + c.text + '"');
		});
	}
	return [String(lines.length)].concat(out);
})()`

// TestRowsFitWideWindowsInBrowser: in a window 1,280 pixels wide, and in
// the narrowest that shows the table's head (1,101: from 1,100 down the
// rows stack their cells without it), no cell of the table of triggered
// calls overlaps its neighbour or reaches out of the table, whatever the
// rows hold: held calls, fallbacks, cached tokens.
func TestRowsFitWideWindowsInBrowser(t *testing.T) {
	ctx := browser(t)
	runs := append(triggeredRuns[:len(triggeredRuns):len(triggeredRuns)],
		struct {
			name string
			run  run
		}{"cached tokens", run{steps: 30, toolText: longText(600), summary: "Logs read.", cached: 120}})
	for _, tc := range runs {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := newTestRecorder(t, nil)
			res := tc.run.drive(t, rec, "c")
			page := serve(t, rec, "c")
			for _, width := range []int64{1280, 1101} {
				tb := newTab(t, ctx)
				if err := chromedp.Do(tb.ctx, chromedp.EmulateViewport(width, 900)); err != nil {
					t.Fatal(err)
				}
				tb.open(t, page)
				if w := eval[int64](t, tb, `window.innerWidth`); w != width {
					t.Fatalf("the window is %d pixels wide, want %d", w, width)
				}
				got := eval[[]string](t, tb, overlaps)
				if got[0] != strconv.Itoa(len(res.reports)+1) {
					t.Fatalf("%d pixels: %s lines measured, want the head and %d rows", width, got[0], len(res.reports))
				}
				if head := eval[bool](t, tb, `document.querySelector('.rows .head').getClientRects().length > 0`); !head {
					t.Errorf("%d pixels: the table's head is not shown", width)
				}
				for _, p := range got[1:] {
					t.Errorf("%d pixels: %s", width, p)
				}
			}
		})
	}
}

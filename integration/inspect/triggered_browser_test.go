package inspect

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// triggeredRuns are real runs whose triggered calls are not all
// compactions: large tool results leave too little room after each
// compaction, so calls are held (Report.RoomHeld); a dead summarizer makes
// compactions fail, the hook back off and fall back.
var triggeredRuns = []struct {
	name string
	run  run
}{
	{"held calls", run{steps: 20, toolText: longText(3000), summary: "Logs read."}},
	{"dead summarizer", run{steps: 40, toolText: longText(600), down: true}},
}

// TestHeldCallsAreCountedApartInBrowser: the page's header counts the
// compactions applied, and each kind of triggered call that was not
// compacted apart, by name; only compactions are numbered (#N, as the fx
// demo's terminal and the hook's log number them), in their rows and on the
// chart; the index's compactions column is theirs.
func TestHeldCallsAreCountedApartInBrowser(t *testing.T) {
	ctx := browser(t)
	for _, tc := range triggeredRuns {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := newTestRecorder(t, nil)
			res := tc.run.drive(t, rec, "c")
			applied, others := 0, map[string]int{}
			for _, rep := range res.reports {
				if k := notCompacted(rep); k != "" {
					others[k]++
				} else {
					applied++
				}
			}
			if applied == 0 || len(others) == 0 {
				t.Fatalf("%d compactions and %v other triggered calls: the case proves nothing", applied, others)
			}
			page := serve(t, rec, "c")
			tb := newTab(t, ctx)
			tb.open(t, page)

			header := eval[string](t, tb, `document.querySelector('h1 + p.meta').innerText`)
			counted := countedCompactions.FindAllStringSubmatch(header, -1)
			if len(counted) != 1 || counted[0][1] != strconv.Itoa(applied) {
				t.Errorf("the header counts compactions as %v; the hook applied %d (of %d triggered calls):\n%s", counted, applied, len(res.reports), header)
			}
			for k, n := range others {
				if !strings.Contains(header, fmt.Sprintf("%d %s", n, k)) {
					t.Errorf("the header does not say %d %s:\n%s", n, k, header)
				}
			}

			cells := eval[[]string](t, tb, `[...document.querySelectorAll('details.row > summary > span:first-child')].map(s => s.innerText)`)
			titles := eval[[]string](t, tb, `[...document.querySelectorAll('svg.chart .marker title')].map(s => s.textContent)`)
			if len(cells) != len(res.reports) || len(titles) != len(res.reports) {
				t.Fatalf("%d rows and %d markers, the hook reported %d triggered calls", len(cells), len(titles), len(res.reports))
			}
			n := 0
			for i, rep := range res.reports {
				want := fmt.Sprintf("before step %d", rep.BeforeStep())
				numbered := rep.Compacted
				if numbered {
					n++
					want = fmt.Sprintf("#%d %s", n, want)
				}
				says := regexp.MustCompile(`(^|[^#\d])` + regexp.QuoteMeta(want) + `(\D|$)`)
				for _, got := range []string{cells[i], titles[i]} {
					if !says.MatchString(got) {
						t.Errorf("triggered call %d (%s): %q does not say %q", i, notCompacted(rep), got, want)
					}
					if !numbered && strings.Contains(got, "#") {
						t.Errorf("triggered call %d (%s), not a compaction, is numbered: %q", i, notCompacted(rep), got)
					}
				}
			}

			tb.open(t, page[:strings.Index(page, "conversation?")])
			index := `(() => { const h = [...document.querySelectorAll('thead th')].map(th => th.innerText);
				return [...document.querySelectorAll('tbody tr:first-child td')].map((td, i) => h[i] + '=' + td.innerText) })()`
			if row := eval[[]string](t, tb, index); !strings.Contains(strings.Join(row, "|"), "|compactions="+strconv.Itoa(applied)+"|") {
				t.Errorf("the index's row is %v; its compactions column should be the %d applied", row, applied)
			}
		})
	}
}

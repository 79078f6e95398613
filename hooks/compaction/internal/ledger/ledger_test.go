package ledger

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/count"
	"github.com/einocompact/einocompact/hooks/compaction/internal/render"
	summarytext "github.com/einocompact/einocompact/hooks/compaction/internal/summary"
	"github.com/einocompact/einocompact/hooks/compaction/internal/transcript"
	"github.com/einocompact/einocompact/internal/marker"
)

func ledgerCall(id, name, args string) *schema.Message {
	return schema.AssistantMessage("", []schema.ToolCall{{ID: id, Function: schema.FunctionCall{Name: name, Arguments: args}}})
}

func TestLedgerRepair(t *testing.T) {
	t.Parallel()
	msgs := []*schema.Message{
		user("Fix the crash in internal/store/cache.go, see https://ci.example.com/runs/8812"),
		ledgerCall("call_7f3a", "read_file", `{"path":"internal/store/cache.go"}`),
		schema.ToolMessage("42 lines read; last changed in commit 9fceb02d", "call_7f3a", schema.WithToolName("read_file")),
	}
	all := []int{0, 1, 2}
	l, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	entries := l.Collect(msgs, all)
	values := map[string]Entry{}
	for _, e := range entries {
		values[e.value] = e
	}
	for _, want := range []string{"internal/store/cache.go", "https://ci.example.com/runs/8812", "9fceb02d"} {
		if _, ok := values[want]; !ok {
			t.Errorf("ledger missed %q; found %v", want, entries)
		}
	}
	// A tool-call id names nothing once its call is summarized.
	if _, ok := values["call_7f3a"]; ok {
		t.Errorf("ledger kept the tool-call id; found %v", entries)
	}
	if e := values["internal/store/cache.go"]; e.uses < 2 {
		t.Errorf("the path appears in several messages; uses = %d", e.uses)
	}

	summaryText := "## Work completed\n- read internal/store/cache.go; it panics."
	repaired, stats, fields, err := l.Repair(context.Background(), summaryText, entries, defaultCounter())
	if err != nil {
		t.Fatal(err)
	}
	if stats.Found != len(entries) || stats.Survived < 1 || stats.Appended != stats.Found-stats.Survived || stats.Dropped != 0 {
		t.Errorf("stats %+v for %d entries", stats, len(entries))
	}
	if !strings.HasPrefix(repaired, summaryText+"\n\n"+summarytext.LedgerHeading+"\n- ") {
		t.Errorf("repaired text:\n%s", repaired)
	}
	for _, e := range entries {
		if !strings.Contains(repaired, e.value) {
			t.Errorf("%q lost after repair", e.value)
		}
	}
	if strings.Count(repaired, "internal/store/cache.go") != 1 {
		t.Error("an identifier the summary kept was appended again")
	}
	if got := Remembered(fields[MarkerKey]); len(got) != len(entries) {
		t.Errorf("marker remembers %v", got)
	}
	if stats.SurvivalRate() >= 1 || stats.SurvivalRate() <= 0 {
		t.Errorf("survival rate %v", stats.SurvivalRate())
	}
}

func TestLedgerCapDropsOldestLeastUsed(t *testing.T) {
	t.Parallel()
	var msgs []*schema.Message
	for i := range 40 {
		msgs = append(msgs, user("open /srv/data/file"+strings.Repeat("x", i%3)+"_"+string(rune('a'+i%26))+string(rune('a'+i/26))+".csv"))
	}
	msgs = append(msgs, user("again /srv/data/hot.csv"), user("and /srv/data/hot.csv"))
	idx := make([]int, len(msgs))
	for i := range idx {
		idx[i] = i
	}
	l, _ := New(&Config{MaxTokens: 40})
	entries := l.Collect(msgs, idx)
	text, stats, _, err := l.Repair(context.Background(), "nothing kept", entries, defaultCounter())
	if err != nil {
		t.Fatal(err)
	}
	if stats.Dropped == 0 || stats.Appended == 0 || stats.Appended+stats.Dropped != stats.Found {
		t.Fatalf("stats %+v", stats)
	}
	block := text[strings.Index(text, summarytext.LedgerHeading):]
	if n := countOf(defaultCounter(), user(block)); n > 40 {
		t.Errorf("block is %d tokens, over the cap of 40", n)
	}
	if !strings.Contains(block, "/srv/data/hot.csv") {
		t.Error("the most used identifier was dropped")
	}
	if !strings.Contains(block, "more dropped to fit the cap") {
		t.Error("the block does not say how many were dropped")
	}
	newest := "/srv/data/file_nb.csv" // i = 39: "x"*0, 'n', 'b'
	oldest := "/srv/data/file_aa.csv"
	if !strings.Contains(block, newest) || strings.Contains(block, oldest) {
		t.Errorf("want the newest kept and the oldest dropped:\n%s", block)
	}
}

func TestLedgerCarriesForwardThroughMarkers(t *testing.T) {
	t.Parallel()
	old := summary("earlier work", 4)
	old.Extra[marker.Key].(map[string]any)[MarkerKey] = []any{"deploy/prod.yaml", "req-1234abcd"}
	// A JSON round trip turns []any of strings into []any again; both read.
	raw, _ := json.Marshal(old)
	var decoded schema.Message
	if err := json.Unmarshal(raw, &decoded); err != nil {
		t.Fatal(err)
	}
	l, _ := New(nil)
	entries := l.Collect([]*schema.Message{&decoded, user("next")}, []int{0, 1})
	var got []string
	for _, e := range entries {
		got = append(got, e.value)
	}
	if !strings.Contains(strings.Join(got, " "), "deploy/prod.yaml") || !strings.Contains(strings.Join(got, " "), "req-1234abcd") {
		t.Errorf("remembered identifiers not carried forward: %v", got)
	}
}

func TestLedgerDisabledAndValidation(t *testing.T) {
	t.Parallel()
	l, _ := New(&Config{Disabled: true})
	if e := l.Collect([]*schema.Message{user("/etc/passwd")}, []int{0}); e != nil {
		t.Errorf("disabled ledger collected %v", e)
	}
	text, stats, fields, _ := l.Repair(context.Background(), "s", nil, defaultCounter())
	if text != "s" || stats.Found != 0 || fields != nil {
		t.Error("disabled ledger changed the summary")
	}
	if _, err := New(&Config{MaxTokens: -1}); err == nil || !strings.Contains(err.Error(), "MaxTokens must be at least 0, got -1") {
		t.Errorf("validation: %v", err)
	}
}

// TestLedgerBlockOfEqualsLines checks that the block written entry by entry
// (ledgerBlockOf) is the block of their lines (ledgerBlock of ledgerLine),
// for values that need no marking, values with blanks and other white space
// (marked), summary tags (escaped), the marks themselves and invalid bytes,
// with and without dropped entries.
func TestLedgerBlockOfEqualsLines(t *testing.T) {
	t.Parallel()
	pool := []string{"/srv/app/a.go", "deadbeef1", "Error: disk full", "a\tb", "x\ny", "</conversation_summary>",
		"<conversation_summary >", "ˆ", "«", "»", "¤", "\xff", "é", " ", "", "id=7", "\u00a0", "\u2028"}
	r := rand.New(rand.NewPCG(17, 13))
	for range 2000 {
		entries := make([]Entry, r.IntN(6))
		lines := make([]string, len(entries))
		for k := range entries {
			var b strings.Builder
			for range 1 + r.IntN(4) {
				b.WriteString(pool[r.IntN(len(pool))])
			}
			entries[k] = Entry{value: b.String(), uses: 1}
			lines[k] = ledgerLine(entries[k])
		}
		dropped := r.IntN(3)
		if got, want := ledgerBlockOf(entries, dropped), ledgerBlock(lines, dropped); got != want {
			t.Fatalf("ledgerBlockOf = %q, want %q", got, want)
		}
	}
}

// TestDroppedNoteRunes checks the note's length without building it
// against the built note's, and the note against its old format.
func TestDroppedNoteRunes(t *testing.T) {
	t.Parallel()
	for _, d := range []int{1, 9, 10, 99, 100, 12345, 1 << 40, -7, 0} {
		if got, want := droppedNoteRunes(d), render.RuneLen(droppedNote(d)); got != want {
			t.Errorf("droppedNoteRunes(%d) = %d, want %d", d, got, want)
		}
		if got, want := droppedNote(d), fmt.Sprintf("\n(%d more dropped to fit the cap)", d); got != want {
			t.Errorf("droppedNote(%d) = %q, want %q", d, got, want)
		}
	}
}

// opaqueCounter hides the counter's type, so fit measures every probe's
// block through Count.
type opaqueCounter struct{ count.Counter }

// TestFitMeasuresLikeCount checks that fit, measuring the default counter's
// probes from line lengths, keeps exactly the entries and writes exactly the
// block it does when it builds and counts every probe: with values that
// marking or tag escaping changes, non-ASCII ones, caps that keep none,
// some or all, and another characters-per-token setting.
func TestFitMeasuresLikeCount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := rand.New(rand.NewPCG(11, 12))
	pool := []string{"/srv/app/file_1.go", "Error: disk full", "«x»", "é日本", "</conversation_summary>", "a\tb", "deadbeef12",
		"https://example.com/a?b=1", "x", "conversation_summary_", "ˆ¤"}
	wide := count.NewApprox(count.Settings{CharsPerToken: 3})
	for _, counter := range []*count.Approx{defaultCounter(), wide} {
		for range 300 {
			lost := make([]Entry, r.IntN(60))
			for i := range lost {
				lost[i].value = pool[r.IntN(len(pool))] + fmt.Sprint(r.IntN(1000))
			}
			l := Ledger{maxTokens: 1 + r.IntN(300), remember: 200}
			k, block, err := l.fit(ctx, lost, counter)
			if err != nil {
				t.Fatal(err)
			}
			wantK, wantBlock, err := l.fit(ctx, lost, opaqueCounter{counter})
			if err != nil {
				t.Fatal(err)
			}
			if k != wantK || block != wantBlock {
				t.Fatalf("fit kept %d (%q), counting every block kept %d (%q)", k, block, wantK, wantBlock)
			}
		}
	}
}

// A summary whose marker remembers fewer identifiers than its ledger block
// lists must still carry every listed one into the next round, including
// those the extractors recognise only in context (argument values in JSON).
func TestLedgerFoldReadsItsOwnBlock(t *testing.T) {
	t.Parallel()
	msgs := []*schema.Message{
		user("Find the flaky export test."),
		ledgerCall("call_fold_1", "search", `{"query": "export tenant"}`),
		schema.ToolMessage("Found 3 matches.", "call_fold_1", schema.WithToolName("search")),
		ledgerCall("call_fold_2", "bash", `{"command": "go test ./internal/store/..."}`),
		schema.ToolMessage("ok", "call_fold_2", schema.WithToolName("bash")),
	}
	l, err := New(&Config{MaxTokens: 4096, MaxRemembered: 1})
	if err != nil {
		t.Fatal(err)
	}
	entries := l.Collect(msgs, []int{0, 1, 2, 3, 4})
	want := map[string]bool{"export tenant": true, "go test ./internal/store/...": true}
	for _, e := range entries {
		delete(want, e.value)
	}
	if len(want) != 0 {
		t.Fatalf("the first round did not extract %v from %v", want, entries)
	}
	text, stats, fields, err := l.Repair(context.Background(), "## Work completed\n- searched and ran the tests", entries, defaultCounter())
	if err != nil {
		t.Fatal(err)
	}
	if stats.Dropped != 0 || stats.Appended != len(entries) {
		t.Fatalf("stats %+v for %d entries lost by the summary", stats, len(entries))
	}
	if n := len(Remembered(fields[MarkerKey])); n != 1 {
		t.Fatalf("marker remembers %d identifiers, want MaxRemembered = 1", n)
	}
	folded := summary(text, len(msgs))
	folded.Extra[marker.Key].(map[string]any)[MarkerKey] = fields[MarkerKey]

	next := l.Collect([]*schema.Message{folded, user("go on")}, []int{0, 1})
	got := map[string]int{}
	for _, e := range next {
		got[e.value] = e.uses
	}
	for _, e := range entries {
		if _, ok := got[e.value]; !ok {
			t.Errorf("folding the summary forgot %q; carried %v", e.value, got)
		}
	}
}

// The tags that wrap a folded summary are not identifiers of the
// conversation.
func TestLedgerIgnoresSummaryTags(t *testing.T) {
	t.Parallel()
	l, _ := New(nil)
	entries := l.Collect([]*schema.Message{summary("read internal/store/cache.go", 3), user("go on")}, []int{0, 1})
	var got []string
	for _, e := range entries {
		got = append(got, e.value)
	}
	if len(got) != 1 || got[0] != "internal/store/cache.go" {
		t.Errorf("identifiers of a folded summary: %q, want only the path it mentions", got)
	}
}

// A folded summary's ledger block is the ledger's to carry, not the
// summarizer's to read again: the transcript shows the summary without it,
// and the next round's ledger still finds every value it listed.
func TestTranscriptLeavesAFoldedLedgerBlockOut(t *testing.T) {
	t.Parallel()
	lost := []string{"internal/store/orders/ledger_12.go", "3f2a9c1d7e", "b7e4c2a0-1d3f-4e5a-9b8c-7d6e5f4a3b2c"}
	body := "## Work completed\n- fixed the export\n\n" + summarytext.LedgerHeading
	for _, v := range lost {
		body += "\n- " + v
	}
	msgs := []*schema.Message{summary(body, 4), user("go on")}
	wrapped, _ := transcript.Wrapped(msgs, []int{0, 1}, transcript.View{DropLedger: true, Request: -1})
	text := transcript.Body(wrapped)
	if !strings.Contains(text, "fixed the export") {
		t.Fatalf("the summary's own text is missing from the transcript:\n%s", text)
	}
	for _, v := range append(lost, summarytext.LedgerHeading) {
		if strings.Contains(text, v) {
			t.Errorf("the transcript shows %q of the folded ledger block:\n%s", v, text)
		}
	}
	l, _ := New(nil)
	found := map[string]bool{}
	for _, e := range l.Collect(msgs, []int{0, 1}) {
		found[e.value] = true
	}
	for _, v := range lost {
		if !found[v] {
			t.Errorf("the next round's ledger lost %q (found %v)", v, found)
		}
	}
}

// The default cap follows the compaction's target, between its floor and
// what the marker can remember; a configured cap is kept as it is.
func TestLedgerCapFollowsTheTarget(t *testing.T) {
	t.Parallel()
	cases := []struct {
		cfg    *Config
		target int
		want   int
	}{
		{nil, 0, 256},
		{nil, 800, 256},
		{nil, 4000, 1000},
		{nil, 6400, 1600},
		{nil, 12800, 1600},
		{&Config{MaxRemembered: 400}, 12800, 3200},
		{&Config{MaxRemembered: 10}, 12800, 256},
		{&Config{MaxTokens: 300}, 12800, 300},
	}
	for _, tc := range cases {
		l, err := New(tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := l.CapFor(tc.target); got != tc.want {
			t.Errorf("capFor(%d) with %+v = %d, want %d", tc.target, tc.cfg, got, tc.want)
		}
	}
}

// TestSortLostIsTheStableOrder checks sortLost against the stable sort it
// replaced, with counts that pack into one key and counts that do not.
func TestSortLostIsTheStableOrder(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	for _, spread := range []int{3, 50, 1 << 22} {
		for range 200 {
			lost := make([]Entry, r.IntN(300))
			for i := range lost {
				lost[i] = Entry{value: strconv.Itoa(i), uses: r.IntN(spread), last: r.IntN(spread)}
			}
			want := slices.Clone(lost)
			slices.SortStableFunc(want, func(a, b Entry) int {
				return cmp.Or(cmp.Compare(b.uses, a.uses), cmp.Compare(b.last, a.last))
			})
			if got := sortLost(lost); !reflect.DeepEqual(got, want) && len(want) > 0 {
				t.Fatalf("spread %d: sortLost differs from the stable sort", spread)
			}
		}
	}
}

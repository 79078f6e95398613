package compaction

import (
	"context"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
)

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
	l, err := newLedger(&LedgerConfig{MaxTokens: 4096, MaxRemembered: 1})
	if err != nil {
		t.Fatal(err)
	}
	entries := l.collect(msgs, []int{0, 1, 2, 3, 4})
	want := map[string]bool{"export tenant": true, "go test ./internal/store/...": true}
	for _, e := range entries {
		delete(want, e.value)
	}
	if len(want) != 0 {
		t.Fatalf("the first round did not extract %v from %v", want, entries)
	}
	text, stats, fields, err := l.repair(context.Background(), "## Work completed\n- searched and ran the tests", entries, DefaultCounter())
	if err != nil {
		t.Fatal(err)
	}
	if stats.Dropped != 0 || stats.Appended != len(entries) {
		t.Fatalf("stats %+v for %d entries lost by the summary", stats, len(entries))
	}
	if n := len(rememberedIdentifiers(fields[ledgerMarkerKey])); n != 1 {
		t.Fatalf("marker remembers %d identifiers, want MaxRemembered = 1", n)
	}
	folded := summary(text, len(msgs))
	folded.Extra[MetaKey].(map[string]any)[ledgerMarkerKey] = fields[ledgerMarkerKey]

	next := l.collect([]*schema.Message{folded, user("go on")}, []int{0, 1})
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
	l, _ := newLedger(nil)
	entries := l.collect([]*schema.Message{summary("read internal/store/cache.go", 3), user("go on")}, []int{0, 1})
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
	body := "## Work completed\n- fixed the export\n\n" + ledgerHeading
	for _, v := range lost {
		body += "\n- " + v
	}
	msgs := []*schema.Message{summary(body, 4), user("go on")}
	wrapped, _ := wrappedTranscript(msgs, []int{0, 1}, transcriptView{dropLedger: true, request: -1})
	text := transcriptBody(wrapped)
	if !strings.Contains(text, "fixed the export") {
		t.Fatalf("the summary's own text is missing from the transcript:\n%s", text)
	}
	for _, v := range append(lost, ledgerHeading) {
		if strings.Contains(text, v) {
			t.Errorf("the transcript shows %q of the folded ledger block:\n%s", v, text)
		}
	}
	l, _ := newLedger(nil)
	found := map[string]bool{}
	for _, e := range l.collect(msgs, []int{0, 1}) {
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
		cfg    *LedgerConfig
		target int
		want   int
	}{
		{nil, 0, 256},
		{nil, 800, 256},
		{nil, 4000, 1000},
		{nil, 6400, 1600},
		{nil, 12800, 1600},
		{&LedgerConfig{MaxRemembered: 400}, 12800, 3200},
		{&LedgerConfig{MaxRemembered: 10}, 12800, 256},
		{&LedgerConfig{MaxTokens: 300}, 12800, 300},
	}
	for _, tc := range cases {
		l, err := newLedger(tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := l.capFor(tc.target); got != tc.want {
			t.Errorf("capFor(%d) with %+v = %d, want %d", tc.target, tc.cfg, got, tc.want)
		}
	}
}

package compaction

import (
	"context"
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

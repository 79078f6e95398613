package compaction

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
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
	l, err := newLedger(nil)
	if err != nil {
		t.Fatal(err)
	}
	entries := l.collect(msgs, all)
	values := map[string]ledgerEntry{}
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
	repaired, stats, fields, err := l.repair(context.Background(), summaryText, entries, DefaultCounter())
	if err != nil {
		t.Fatal(err)
	}
	if stats.Found != len(entries) || stats.Survived < 1 || stats.Appended != stats.Found-stats.Survived || stats.Dropped != 0 {
		t.Errorf("stats %+v for %d entries", stats, len(entries))
	}
	if !strings.HasPrefix(repaired, summaryText+"\n\n"+ledgerHeading+"\n- ") {
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
	if got := rememberedIdentifiers(fields[ledgerMarkerKey]); len(got) != len(entries) {
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
	l, _ := newLedger(&LedgerConfig{MaxTokens: 40})
	entries := l.collect(msgs, idx)
	text, stats, _, err := l.repair(context.Background(), "nothing kept", entries, DefaultCounter())
	if err != nil {
		t.Fatal(err)
	}
	if stats.Dropped == 0 || stats.Appended == 0 || stats.Appended+stats.Dropped != stats.Found {
		t.Fatalf("stats %+v", stats)
	}
	block := text[strings.Index(text, ledgerHeading):]
	if n := count(DefaultCounter(), user(block)); n > 40 {
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
	old.Extra[MetaKey].(map[string]any)[ledgerMarkerKey] = []any{"deploy/prod.yaml", "req-1234abcd"}
	// A JSON round trip turns []any of strings into []any again; both read.
	raw, _ := json.Marshal(old)
	var decoded schema.Message
	if err := json.Unmarshal(raw, &decoded); err != nil {
		t.Fatal(err)
	}
	l, _ := newLedger(nil)
	entries := l.collect([]*schema.Message{&decoded, user("next")}, []int{0, 1})
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
	l, _ := newLedger(&LedgerConfig{Disabled: true})
	if e := l.collect([]*schema.Message{user("/etc/passwd")}, []int{0}); e != nil {
		t.Errorf("disabled ledger collected %v", e)
	}
	text, stats, fields, _ := l.repair(context.Background(), "s", nil, DefaultCounter())
	if text != "s" || stats.Found != 0 || fields != nil {
		t.Error("disabled ledger changed the summary")
	}
	if _, err := newLedger(&LedgerConfig{MaxTokens: -1}); err == nil || !strings.Contains(err.Error(), "MaxTokens must be at least 0, got -1") {
		t.Errorf("validation: %v", err)
	}
}

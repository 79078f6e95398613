package compaction

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	summarytext "github.com/einocompact/einocompact/hooks/compaction/internal/summary"
)

// lrSteps are tool steps naming path, each result long enough that a few
// of them fill a window of 1000 fc4 tokens.
func lrSteps(prefix string, paths ...string) []*schema.Message {
	var out []*schema.Message
	for i, p := range paths {
		id := fmt.Sprintf("call_%s%d", prefix, i)
		out = append(out, ledgerCall(id, "read_file", `{"path":"`+p+`"}`),
			schema.ToolMessage(rep("line of "+p+"\n", 40), id, schema.WithToolName("read_file")))
	}
	return out
}

// TestLedgerNamesArchiveReferences: with an archive, a second summary's
// ledger tags each identifier it carries from the first (folded) summary
// with the reference of the span that held it, and its legend names that
// reference, which recall reads the identifier back from; the identifiers
// of the span it replaces itself carry no tag (the summary's own pointer
// names their reference). Without an archive no line has a tag and the
// block no legend.
func TestLedgerNamesArchiveReferences(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, archived := range []bool{true, false} {
		t.Run(fmt.Sprint("archive ", archived), func(t *testing.T) {
			t.Parallel()
			var a Archive
			if archived {
				a = arcNew(t, t.TempDir())
			}
			c, _ := slNew(t, scFixed(t, "## Work completed\n- read files"), SummarizationConfig{})
			h := harcHook(t, c, a)
			st := &hooks.State{Messages: append([]*schema.Message{sys("rules"), user("Why does deploy fail?")},
				lrSteps("a", "deploy/prod.yaml", "deploy/staging.yaml", "deploy/canary.yaml")...)}
			first, err := h.Decide(ctx, st)
			if err != nil || !first.Compacted {
				t.Fatalf("first compaction: %+v, %v", first, err)
			}
			st.Messages = append(slices.Clone(st.Messages), lrSteps("b", "services/billing/main.go", "services/billing/db.go", "services/billing/api.go")...)
			second, err := h.Decide(ctx, st)
			if err != nil || !second.Compacted {
				t.Fatalf("second compaction: %+v, %v", second, err)
			}
			var s2 *schema.Message
			for _, m := range st.Messages {
				if IsStrategy(m, StrategySummarization) {
					s2 = m
				}
			}
			if s2 == nil {
				t.Fatal("no summary after the second compaction")
			}
			refs := summarytext.BlockRefs(s2.Content)
			t.Logf("second summary:\n%s", s2.Content)
			if !archived {
				if refs != nil || strings.Contains(s2.Content, " [a1]") {
					t.Fatalf("without an archive the ledger names references: %v", refs)
				}
				return
			}
			if first.ArchiveRef == "" || second.ArchiveRef == "" || first.ArchiveRef == second.ArchiveRef {
				t.Fatalf("archive references %q, %q", first.ArchiveRef, second.ArchiveRef)
			}
			if got := refs["deploy/prod.yaml"]; got != first.ArchiveRef {
				t.Fatalf("the carried identifier deploy/prod.yaml names %q, want the first span's %q", got, first.ArchiveRef)
			}
			if _, tagged := refs["services/billing/main.go"]; tagged || !slices.Contains(summarytext.BlockValues(s2.Content), "services/billing/main.go") {
				t.Fatalf("the second span's identifier: listed %v, tagged %v", summarytext.BlockValues(s2.Content), tagged)
			}
			recall, err := NewRecallTool(a)
			if err != nil {
				t.Fatal(err)
			}
			args, _ := json.Marshal(map[string]string{"reference": refs["deploy/prod.yaml"], "search": "deploy/prod.yaml"})
			out, err := recall.InvokableRun(ctx, string(args))
			if err != nil || !strings.Contains(out, "line of deploy/prod.yaml") {
				t.Fatalf("recall of the tagged reference: %v\n%s", err, out)
			}
		})
	}
}

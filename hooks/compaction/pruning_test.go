package compaction

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/message"
)

// prConv is conv(r...) of §D.2: U("task"), then A→ci and T(ci, r_i) per result.
func prConv(results ...string) []*schema.Message {
	out := []*schema.Message{user("task")}
	for i, r := range results {
		id := "c" + strconv.Itoa(i+1)
		out = append(out, call(id), result(id, r))
	}
	return out
}

func prNew(t *testing.T, cfg *ToolResultPruningConfig) *ToolResultPruningCompactor {
	t.Helper()
	c, err := NewToolResultPruningCompactor(context.Background(), cfg)
	if err != nil {
		t.Fatalf("NewToolResultPruningCompactor: %v", err)
	}
	return c
}

// prPlaceholderChars is the FC1 size of a pruned search result: the tool
// prefix plus the default placeholder naming search.
func prPlaceholderChars() int {
	return len("[tool:search] ") + len(strings.ReplaceAll(defaultPruningPlaceholder, "{tool_name}", "search"))
}

func prWithExtra(m *schema.Message, extra map[string]any) *schema.Message {
	m.Extra = extra
	return m
}

func TestToolResultPruningReferenceCases(t *testing.T) {
	t.Parallel()
	zero, two := 0, 2
	three := prConv(rep("a", 400), rep("b", 400), rep("c", 400))
	// Enough to prune exactly the first result: a 414-char result becomes
	// the placeholder message.
	firstOnly := count(fc1, three...) - (414 - prPlaceholderChars())

	parallel := []*schema.Message{
		user("task"), call("c1"), result("c1", rep("a", 400)),
		call("p1", "p2", "p3"), result("p1", rep("p", 400)), result("p2", rep("q", 400)), result("p3", rep("r", 400)),
		call("c3"), result("c3", rep("z", 400)),
	}
	tests := []struct {
		name   string
		msgs   []*schema.Message
		cfg    *ToolResultPruningConfig
		target int
		pruned []int // indices replaced by placeholders; nil: Compact returns nil
	}{
		{name: "prunes the oldest result only as far as needed", msgs: three, target: firstOnly, pruned: []int{2}},
		{name: "newest step protected", msgs: prConv(rep("a", 400), rep("b", 400), "newest"), target: 1, pruned: []int{2, 4}},
		{
			name: "MinKeepSteps 2 protects a parallel step", msgs: parallel,
			cfg: &ToolResultPruningConfig{MinKeepSteps: &two}, target: 1, pruned: []int{2},
		},
		{name: "already fits", msgs: three, target: count(fc1, three...)},
		{name: "single step is always protected", msgs: prConv(rep("a", 4000)), target: 1},
		{
			name: "placeholder longer than the result saves nothing", msgs: prConv("short", "newest"),
			cfg:    &ToolResultPruningConfig{MinTokens: &zero, Placeholder: "This placeholder is deliberately longer than the result it replaces: {tool_name}."},
			target: 1,
		},
		{name: "results under MinTokens are kept", msgs: prConv("short", "newest"), target: 1},
		{
			name: "results already marked by a compactor are kept",
			msgs: []*schema.Message{
				user("task"), call("c1"),
				prWithExtra(result("c1", rep("a", 400)), map[string]any{MetaKey: map[string]any{"strategy": "other"}}),
				call("c2"), result("c2", "newest"),
			},
			target: 1,
		},
		{
			name: "offloaded results are kept",
			msgs: []*schema.Message{
				user("task"), call("c1"),
				prWithExtra(result("c1", rep("a", 400)), map[string]any{"tool_result_offloaded": true}),
				call("c2"), result("c2", "newest"),
			},
			target: 1,
		},
		{
			name: "an empty SkipMetaKeys exempts nothing",
			msgs: []*schema.Message{
				user("task"), call("c1"),
				prWithExtra(result("c1", rep("a", 400)), map[string]any{"tool_result_offloaded": true}),
				call("c2"), result("c2", "newest"),
			},
			cfg: &ToolResultPruningConfig{SkipMetaKeys: []string{}}, target: 1, pruned: []int{2},
		},
		{
			name:   "assistant-only steps do not use up the quota",
			msgs:   []*schema.Message{user("task"), call("c1"), result("c1", rep("a", 400)), call("c2"), result("c2", rep("b", 400)), asst("thinking")},
			target: 1, pruned: []int{2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := cloneAll(tt.msgs)
			got, err := prNew(t, tt.cfg).Compact(context.Background(), tt.msgs, tt.target, fc1)
			if err != nil {
				t.Fatalf("Compact: %v", err)
			}
			if !reflect.DeepEqual(tt.msgs, before) {
				t.Fatal("Compact mutated its input")
			}
			if tt.pruned == nil {
				if got != nil {
					t.Fatalf("got %q, want nil", Render(got, RenderOptions{}))
				}
				return
			}
			if len(got) != len(tt.msgs) {
				t.Fatalf("got %d messages, want %d: pruning never changes the count", len(got), len(tt.msgs))
			}
			for i := range got {
				isPruned := IsStrategy(got[i], StrategyToolResultPruning)
				want := false
				for _, p := range tt.pruned {
					want = want || p == i
				}
				switch {
				case want && !isPruned:
					t.Errorf("message %d not pruned", i)
				case !want && got[i] != tt.msgs[i]:
					t.Errorf("message %d changed", i)
				case want:
					prCheckPruned(t, got[i], tt.msgs[i], fc1)
				}
			}
			if err := swPairing(got); err != nil {
				t.Error(err)
			}
		})
	}
}

// prCheckPruned checks that p is orig pruned: same call, tool and name, the
// default placeholder, and the marker with orig's size.
func prCheckPruned(t *testing.T, p, orig *schema.Message, counter TokenCounter) {
	t.Helper()
	if p.Role != schema.Tool || p.ToolCallID != orig.ToolCallID || p.ToolName != orig.ToolName || p.Name != orig.Name {
		t.Errorf("pruned message lost its identity: %+v", p)
	}
	if want := strings.ReplaceAll(defaultPruningPlaceholder, "{tool_name}", orig.ToolName); p.Content != want {
		t.Errorf("content = %q, want %q", p.Content, want)
	}
	f, _ := MarkerFields(p)
	if n, _ := message.Int(f["original_tokens"]); n != count(counter, orig) {
		t.Errorf("original_tokens = %v, want %d", f["original_tokens"], count(counter, orig))
	}
}

func TestToolResultPruningKeepsExtraAndIdentity(t *testing.T) {
	t.Parallel()
	failed := schema.ToolMessage(rep("error ", 238), "c1", schema.WithToolName("search"))
	failed.Name = "searcher"
	failed.Extra = map[string]any{"custom": "value"}
	msgs := []*schema.Message{user("task"), call("c1"), failed, call("c2"), result("c2", "newest")}
	got, err := prNew(t, nil).Compact(context.Background(), msgs, 1, fc1)
	if err != nil || got == nil {
		t.Fatalf("Compact = %v, %v", got, err)
	}
	prCheckPruned(t, got[2], failed, fc1)
	want := map[string]any{"custom": "value", MetaKey: map[string]any{
		"strategy": StrategyToolResultPruning, "original_tokens": len("[tool:search] ") + 6*238,
	}}
	if !reflect.DeepEqual(got[2].Extra, want) {
		t.Errorf("Extra = %v, want %v", got[2].Extra, want)
	}
	if len(failed.Extra) != 1 {
		t.Error("the original Extra was modified")
	}
}

func TestToolResultPruningPlaceholders(t *testing.T) {
	t.Parallel()
	zero := 0
	tmpl := `Run {tool_name} again with {"query": "..."}.`
	msgs := []*schema.Message{
		user("task"), swCall("database_query", "q1"), schema.ToolMessage(rep("row ", 100), "q1", schema.WithToolName("database_query")),
		call("c2"), result("c2", "newest"),
	}
	got, err := prNew(t, &ToolResultPruningConfig{MinTokens: &zero, Placeholder: tmpl}).Compact(context.Background(), msgs, 1, fc1)
	if err != nil || got == nil {
		t.Fatalf("Compact = %v, %v", got, err)
	}
	if want := `Run database_query again with {"query": "..."}.`; got[2].Content != want {
		t.Errorf("content = %q, want %q", got[2].Content, want)
	}

	// A result that does not name its tool takes the name from its call.
	anon := []*schema.Message{user("task"), swCall("fetch", "f1"), schema.ToolMessage(rep("x", 500), "f1"), call("c2"), result("c2", "n")}
	got, err = prNew(t, nil).Compact(context.Background(), anon, 1, fc1)
	if err != nil || got == nil || !strings.Contains(got[2].Content, "`fetch`") {
		t.Fatalf("anonymous result: %v, %v", got, err)
	}
}

func TestToolResultPruningImageResult(t *testing.T) {
	t.Parallel()
	counter, err := NewApproximateTokenCounter(&ApproximateConfig{TokensPerImage: 500})
	if err != nil {
		t.Fatal(err)
	}
	url := "https://example.com/cat.png"
	img := schema.ToolMessage("", "g1", schema.WithToolName("image_generator"))
	img.UserInputMultiContent = []schema.MessageInputPart{{Type: schema.ChatMessagePartTypeImageURL,
		Image: &schema.MessageInputImage{MessagePartCommon: schema.MessagePartCommon{URL: &url}}}}
	msgs := []*schema.Message{user("task"), swCall("image_generator", "g1"), img, call("c2"), result("c2", "newest")}
	hundred := 100
	got, err := prNew(t, &ToolResultPruningConfig{MinTokens: &hundred}).Compact(context.Background(), msgs, 1, counter)
	if err != nil || got == nil {
		t.Fatalf("Compact = %v, %v", got, err)
	}
	prCheckPruned(t, got[2], img, counter)
	if len(got[2].UserInputMultiContent) != 0 {
		t.Error("the image survived pruning")
	}
}

func TestToolResultPruningConfig(t *testing.T) {
	t.Parallel()
	c := prNew(t, nil)
	if c.minKeep != 1 || c.minTokens != 200 || c.placeholder != defaultPruningPlaceholder ||
		!reflect.DeepEqual(c.skipKeys, []string{"tool_result_offloaded"}) {
		t.Errorf("defaults = %d %d %q %v", c.minKeep, c.minTokens, c.placeholder, c.skipKeys)
	}
	zero, neg := 0, -1
	for _, tt := range []struct {
		cfg        ToolResultPruningConfig
		field, bad string
	}{
		{ToolResultPruningConfig{MinKeepSteps: &zero}, "MinKeepSteps", "0"},
		{ToolResultPruningConfig{MinTokens: &neg}, "MinTokens", "-1"},
	} {
		_, err := NewToolResultPruningCompactor(context.Background(), &tt.cfg)
		if err == nil || !strings.Contains(err.Error(), tt.field) || !strings.Contains(err.Error(), tt.bad) {
			t.Errorf("%s %s: err = %v", tt.field, tt.bad, err)
		}
	}
}

func TestToolResultPruningErrors(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	msgs := prConv(rep("a", 400), "b")
	if _, err := prNew(t, nil).Compact(ctx, msgs, 1, fc1); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled ctx: err = %v", err)
	}
	boom := errors.New("boom")
	bad := TokenCounterFunc(func(context.Context, []*schema.Message, []*schema.ToolInfo) (int, error) { return 0, boom })
	if _, err := prNew(t, nil).Compact(context.Background(), msgs, 1, bad); !errors.Is(err, boom) {
		t.Errorf("failing counter: err = %v", err)
	}
}

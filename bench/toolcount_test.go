package bench

import (
	"context"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// The counter remembers tool schema sizes; these cases check that what it
// remembers always equals a fresh rendering, by independent arithmetic on
// RenderTools.
func TestCounterToolSizesMatchRendering(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tools := Tools()
	edited := *tools[0]
	edited.Desc = "Read a file of the repository, with a much longer description than before."
	cases := []struct {
		name  string
		tools []*schema.ToolInfo
	}{
		{"one", tools[:1]},
		{"all", tools},
		{"with nil", []*schema.ToolInfo{nil, tools[1], nil, tools[2]}},
		{"only nil", []*schema.ToolInfo{nil}},
		{"repeated", []*schema.ToolInfo{tools[3], tools[3]}},
		{"edited copy", []*schema.ToolInfo{&edited}},
		{"no parameters", []*schema.ToolInfo{{Name: "now", Desc: "Current time; 現在の時刻."}}},
	}
	c := compaction.DefaultCounter()
	for _, tc := range cases {
		want := utf8.RuneCountInString(compaction.RenderTools(tc.tools)) / 4
		for round := range 2 { // the second round reads the memo
			got, err := c.Count(ctx, nil, tc.tools)
			if err != nil || got != want {
				t.Errorf("%s, round %d: Count = %d, %v; want %d", tc.name, round, got, err, want)
			}
		}
	}
}

func TestCounterToolSizesFollowEdits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := compaction.DefaultCounter()
	tool := &schema.ToolInfo{Name: "probe", Desc: "short"}
	before, _ := c.Count(ctx, nil, []*schema.ToolInfo{tool})
	tool.Desc = "a description long enough to change the count by several tokens"
	after, _ := c.Count(ctx, nil, []*schema.ToolInfo{tool})
	want := utf8.RuneCountInString(compaction.RenderTools([]*schema.ToolInfo{tool})) / 4
	if after != want || after <= before {
		t.Errorf("after editing Desc: %d tokens (before %d), want %d", after, before, want)
	}
}

func TestCounterToolSizesConcurrent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := compaction.DefaultCounter()
	tools := Tools()
	want := utf8.RuneCountInString(compaction.RenderTools(tools)) / 4
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if got, _ := c.Count(ctx, nil, tools); got != want {
					t.Errorf("Count = %d, want %d", got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

// Tools built per request must not make the memo grow without bound, and
// counts must stay right across the point where it is emptied.
func TestCounterToolSizesManyTools(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := compaction.DefaultCounter()
	for i := range 1500 {
		tool := []*schema.ToolInfo{{Name: "t", Desc: string(rune('a'+i%26)) + string(make([]byte, i%97))}}
		want := utf8.RuneCountInString(compaction.RenderTools(tool)) / 4
		if got, _ := c.Count(ctx, nil, tool); got != want {
			t.Fatalf("tool %d: Count = %d, want %d", i, got, want)
		}
	}
}

package agent

import (
	"context"
	"slices"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/openaitest"
)

// What before_llm hooks leave in State.Tools is what the provider receives,
// in Run and in Stream.
func TestBeforeLLMToolsAreSent(t *testing.T) {
	t.Parallel()
	other := &schema.ToolInfo{Name: "other", Desc: "another tool"}
	tests := []struct {
		name string
		edit func([]*schema.ToolInfo) []*schema.ToolInfo
		want []string
	}{
		{"untouched", func(ts []*schema.ToolInfo) []*schema.ToolInfo { return ts }, []string{"lookup", "fetch"}},
		{"cleared", func([]*schema.ToolInfo) []*schema.ToolInfo { return nil }, nil},
		{"trimmed", func(ts []*schema.ToolInfo) []*schema.ToolInfo { return ts[1:] }, []string{"fetch"}},
		{"added", func(ts []*schema.ToolInfo) []*schema.ToolInfo { return append(slices.Clone(ts), other) }, []string{"lookup", "fetch", "other"}},
	}
	for _, tt := range tests {
		for _, streamed := range []bool{false, true} {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				reg := hooks.NewRegistry()
				mustRegister(t, reg, hooks.BeforeLLM, hooks.Func(func(_ context.Context, s *hooks.State) error {
					s.Tools = tt.edit(s.Tools)
					return nil
				}))
				a, srv := newTestAgent(t, Config{Tools: []tool.BaseTool{lookup, lookupTool{name: "fetch"}}, Hooks: reg}, openaitest.Text("done"))
				in := []*schema.Message{schema.UserMessage("q")}
				var err error
				if streamed {
					_, err = collect(t, a, in)
				} else {
					_, err = a.Run(context.Background(), in)
				}
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, tl := range srv.Requests()[0].Tools {
					got = append(got, tl.Function.Name)
				}
				if !slices.Equal(got, tt.want) {
					t.Errorf("streamed=%v: tools sent %q, want %q", streamed, got, tt.want)
				}
			})
		}
	}
}

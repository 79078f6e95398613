package plan

import (
	"bytes"
	"context"
	"encoding/gob"
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/count"
	"github.com/einocompact/einocompact/hooks/compaction/internal/notation"
	"github.com/einocompact/einocompact/hooks/compaction/internal/render"
)

// The test notation (internal/notation).
var (
	sys     = notation.Sys
	user    = notation.User
	asst    = notation.Asst
	call    = notation.Call
	result  = notation.Result
	summary = notation.Summary
	rep     = notation.Rep
)

// rendered is compaction.Render(msgs, RenderOptions{}), for failure messages.
func rendered(msgs []*schema.Message) string {
	var b strings.Builder
	render.Write(&b, msgs, render.Options{})
	return b.String()
}

// fakeCounter is FakeCounter(k) of §0.2: floor(code points of the rendering
// (messages then tools, no separator) / k), with no flat charges.
type fakeCounter struct{ k int }

func (f fakeCounter) Count(_ context.Context, messages []*schema.Message, tools []*schema.ToolInfo) (int, error) {
	if len(messages) == 0 && len(tools) == 0 {
		return 0, nil
	}
	n := render.RuneLen(rendered(messages)) + render.RuneLen(render.Tools(tools))
	return n / f.k, nil
}

var fc1 count.Counter = fakeCounter{k: 1}

// countOf is count of hooks/compaction's tests (a package name here):
// fc.Count with the error dropped, for computing expectations.
func countOf(fc count.Counter, messages ...*schema.Message) int {
	n, err := fc.Count(context.Background(), messages, nil)
	if err != nil {
		panic(err)
	}
	return n
}

// cloneAll deep-copies a conversation (through gob) so a test can later
// prove the original was not mutated.
func cloneAll(messages []*schema.Message) []*schema.Message {
	out := make([]*schema.Message, len(messages))
	for i, m := range messages {
		var buf bytes.Buffer
		if err := gob.NewEncoder(&buf).Encode(m); err != nil {
			panic(err)
		}
		var c schema.Message
		if err := gob.NewDecoder(&buf).Decode(&c); err != nil {
			panic(err)
		}
		out[i] = &c
	}
	return out
}

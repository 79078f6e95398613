package agent

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/openaitest"
)

// cancellingTool cancels the run's ctx, as a caller giving up mid-tool does,
// and fails with the ctx's error.
type cancellingTool struct{ cancel context.CancelFunc }

func (cancellingTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "cancel", Desc: "cancels the run"}, nil
}

func (t cancellingTool) InvokableRun(ctx context.Context, _ string, _ ...tool.Option) (string, error) {
	t.cancel()
	<-ctx.Done()
	return "", ctx.Err()
}

// A tool's error, and a call to a tool the agent does not have, reach the
// model as the calls' results by default, in Run and in Stream; with
// AbortOnToolError the first of them ends the run with the tool's error.
func TestToolErrorsReachTheModel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		abort  bool
		stream bool
	}{
		{"run", false, false},
		{"stream", false, true},
		{"run, abort on tool error", true, false},
		{"stream, abort on tool error", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, srv := newTestAgent(t, Config{Tools: []tool.BaseTool{lookup}, AbortOnToolError: tc.abort},
				// lookup fails to decode arguments that are not JSON.
				openaitest.Call(openaitest.Fn("c1", "lookup", `not json`), openaitest.Fn("c2", "missing", `{}`)),
				openaitest.Text("the lookup failed; here is what I know"))
			in := []*schema.Message{schema.UserMessage("q")}
			var res *Result
			var err error
			if tc.stream {
				var evs []*Event
				evs, err = collect(t, a, in)
				if err == nil {
					res = evs[len(evs)-1].Result
				}
			} else {
				res, err = a.Run(context.Background(), in)
			}
			if tc.abort {
				if err == nil {
					t.Fatalf("the run went on after a tool error: %s", roles(res.Messages))
				}
				if n := len(srv.Requests()); n != 1 {
					t.Errorf("%d model calls after the tool error; want 1", n)
				}
				return
			}
			if err != nil {
				t.Fatalf("a tool error ended the run: %v", err)
			}
			if got := roles(res.Messages); got != "UCTTA" {
				t.Fatalf("conversation %s; want UCTTA", got)
			}
			results := map[string]string{}
			for _, m := range res.Messages[2:4] {
				results[m.ToolCallID] = m.Content
			}
			if r := results["c1"]; !strings.HasPrefix(r, "error: ") || !strings.Contains(r, "invalid character") {
				t.Errorf("lookup's result %q; want the JSON error after \"error: \"", r)
			}
			if r := results["c2"]; !strings.HasPrefix(r, "error: ") || !strings.Contains(r, `"missing"`) {
				t.Errorf("the unknown tool's result %q; want an error naming it", r)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 || !strings.Contains(reqs[1].PromptText(), "invalid character") {
				t.Errorf("the model's second call did not carry the tool's error (%d calls)", len(reqs))
			}
		})
	}
}

// A tool failing because the run's ctx ended is not the tool's error to
// report: the run ends with an error wrapping ctx.Err().
func TestToolErrorAfterCancelEndsTheRun(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, srv := newTestAgent(t, Config{Tools: []tool.BaseTool{cancellingTool{cancel: cancel}}},
		openaitest.Call(openaitest.Fn("c1", "cancel", `{}`)),
		openaitest.Text("unreachable"))
	_, err := a.Run(ctx, []*schema.Message{schema.UserMessage("q")})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("run error %v; want one wrapping context.Canceled", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d model calls; want 1", n)
	}
}

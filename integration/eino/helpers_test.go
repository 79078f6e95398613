package einoint

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/openaitest"
)

// lookupTool answers "NAME(KEY)=ok" so tests can find results in prompts.
type lookupTool struct{}

func (lookupTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{
		Name: "lookup",
		Desc: "looks a key up",
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
			"key": {Type: schema.String, Required: true},
		}),
	}, nil
}

func (lookupTool) InvokableRun(_ context.Context, args string, _ ...tool.Option) (string, error) {
	var in struct{ Key string }
	if err := json.Unmarshal([]byte(args), &in); err != nil {
		return "", err
	}
	return fmt.Sprintf("lookup(%s)=ok", in.Key), nil
}

func call(id, key string) openaitest.ToolCall {
	return openaitest.Fn(id, "lookup", fmt.Sprintf(`{"key":%q}`, key))
}

// toolLoop answers with a lookup until n tool results are in the prompt,
// then with "final answer". Apart from call ids it depends only on the
// request, so it serves any number of runs.
func toolLoop(n int) openaitest.Responder {
	var ids atomic.Int64 // call ids stay unique even when compaction drops results
	return func(r *openaitest.Request) (*openaitest.Reply, error) {
		results := 0
		for _, m := range r.Messages {
			if m.Role == "tool" {
				results++
			}
		}
		if results >= n {
			return openaitest.Text("final answer"), nil
		}
		id := ids.Add(1)
		return openaitest.Call(call(fmt.Sprintf("c%d", id), fmt.Sprintf("k%d", id))), nil
	}
}

func chatModel(t *testing.T, srv *openaitest.Server) model.ToolCallingChatModel {
	t.Helper()
	cm, err := srv.ChatModel(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return cm
}

// modelRecorder is a callback handler that records the text of every chat
// model output it is told about, streamed or not.
type modelRecorder struct {
	mu      sync.Mutex
	outputs []string
	// streams tracks the goroutines draining streamed outputs, so all() can
	// wait for them instead of racing them.
	streams sync.WaitGroup
}

func (r *modelRecorder) handler() callbacks.Handler {
	return callbacks.NewHandlerBuilder().
		OnEndFn(func(ctx context.Context, info *callbacks.RunInfo, out callbacks.CallbackOutput) context.Context {
			if mo := model.ConvCallbackOutput(out); mo != nil && mo.Message != nil {
				r.add(mo.Message.Content)
			}
			return ctx
		}).
		OnEndWithStreamOutputFn(func(ctx context.Context, info *callbacks.RunInfo, out *schema.StreamReader[callbacks.CallbackOutput]) context.Context {
			r.streams.Go(func() {
				defer out.Close()
				var b strings.Builder
				for {
					c, err := out.Recv()
					if err != nil {
						break
					}
					if mo := model.ConvCallbackOutput(c); mo != nil && mo.Message != nil {
						b.WriteString(mo.Message.Content)
					}
				}
				r.add(b.String())
			})
			return ctx
		}).
		Build()
}

func (r *modelRecorder) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.outputs = append(r.outputs, s)
}

// all returns every output recorded, once the streamed ones are complete;
// call it after the run has ended.
func (r *modelRecorder) all() []string {
	r.streams.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.outputs...)
}

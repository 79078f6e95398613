package inspect_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/integration/inspect"
)

// Wrap a CompactionHook so that every model call is recorded, register it
// where the hook would go, and mount the pages on a private mux.
func ExampleRecorder_Wrap() {
	ctx := context.Background()
	rec, err := inspect.NewRecorder(nil) // defaults: no conversation text kept
	if err != nil {
		panic(err)
	}
	keepLast := compaction.CompactorFunc(func(_ context.Context, msgs []*schema.Message, _ int, _ compaction.TokenCounter) ([]*schema.Message, error) {
		return msgs[len(msgs)-1:], nil
	})
	hook, err := compaction.NewCompactionHook(ctx, &compaction.HookConfig{Compactor: keepLast, ContextWindow: 100})
	if err != nil {
		panic(err)
	}
	w, err := rec.Wrap(hook)
	if err != nil {
		panic(err)
	}
	reg := hooks.NewRegistry()
	if err := reg.Register(hooks.BeforeLLM, w); err != nil {
		panic(err)
	}

	state := &hooks.State{Messages: []*schema.Message{schema.UserMessage(strings.Repeat("long ", 100)), schema.UserMessage("go on")}}
	if err := reg.Run(inspect.WithConversation(ctx, "demo"), hooks.BeforeLLM, state); err != nil {
		panic(err)
	}

	mux := http.NewServeMux()
	rec.Register(mux)
	resp := httptest.NewRecorder()
	mux.ServeHTTP(resp, httptest.NewRequest(http.MethodGet, "/debug/compaction/conversation?id=demo", nil))
	fmt.Println(resp.Code, strings.Count(resp.Body.String(), `class="marker k-synchronous"`), "marker")
	// Output: 200 1 marker
}

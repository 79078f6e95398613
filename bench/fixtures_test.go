package bench

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/cloudwego/eino/adk"
	einosum "github.com/cloudwego/eino/adk/middlewares/summarization"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// benchSizes are the conversation lengths every benchmark runs at.
var benchSizes = []int{100, 1000, 10000}

// neverTrigger is a window so large that nothing in these conversations
// reaches it, so the non-triggering path is what gets measured.
const neverTrigger = 1 << 40

var (
	fixtureMu    sync.Mutex
	fixtureCache = map[string][]*schema.Message{}
)

// fixture returns the shared conversation of n messages, with or without
// provider usage. Callers must not modify it.
func fixture(n int, usage bool) []*schema.Message {
	key := fmt.Sprint(n, usage)
	fixtureMu.Lock()
	defer fixtureMu.Unlock()
	if m, ok := fixtureCache[key]; ok {
		return m
	}
	m := Conversation(n, uint64(n))
	if !usage {
		m = WithoutUsage(m)
	}
	fixtureCache[key] = m
	return m
}

// fixtureContextTokens is what the agent puts in State.ContextTokens: the
// last assistant reply's prompt plus completion, 0 when it has no usage.
func fixtureContextTokens(msgs []*schema.Message) int {
	i := compaction.LastAssistantIndex(msgs)
	if i < 0 || msgs[i].ResponseMeta == nil || msgs[i].ResponseMeta.Usage == nil {
		return 0
	}
	u := msgs[i].ResponseMeta.Usage
	return u.PromptTokens + u.CompletionTokens
}

func fixtureCompactor(tb testing.TB) *compaction.SummarizationCompactor {
	tb.Helper()
	c, err := compaction.NewSummarizationCompactor(context.Background(), &compaction.SummarizationConfig{
		ChatModel: &Summarizer{ZeroLatency: true},
		Logger:    discardLogger,
	})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func fixtureHook(tb testing.TB, window int) *compaction.CompactionHook {
	tb.Helper()
	h, err := compaction.NewCompactionHook(context.Background(), &compaction.HookConfig{
		Compactor:     fixtureCompactor(tb),
		ContextWindow: window,
		Logger:        discardLogger,
	})
	if err != nil {
		tb.Fatal(err)
	}
	return h
}

// fixtureEino is Eino's middleware with its default token counter, triggering
// above trigger tokens.
func fixtureEino(tb testing.TB, trigger int) adk.ChatModelAgentMiddleware {
	tb.Helper()
	return fixtureEinoModel(tb, trigger, &Summarizer{ZeroLatency: true})
}

// fixtureEinoModel is fixtureEino with the given chat model as summarizer.
func fixtureEinoModel(tb testing.TB, trigger int, sum model.BaseChatModel) adk.ChatModelAgentMiddleware {
	tb.Helper()
	mw, err := einosum.New(context.Background(), &einosum.Config{
		Model:   sum,
		Trigger: &einosum.TriggerCondition{ContextTokens: trigger},
	})
	if err != nil {
		tb.Fatal(err)
	}
	return mw
}

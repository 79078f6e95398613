package bench

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components/model"
)

// BenchmarkCompactHTTP is BenchmarkCompact with the summarizer reached the
// way an application reaches it: the eino-ext OpenAI client, talking HTTP
// to a loopback server that reads each request whole and answers one fixed
// summary of about 2 KB, with usage. Both sides then pay for turning what
// they send into the bytes of a request: einocompact renders a transcript
// and the client encodes it; Eino hands over the messages and the client
// encodes them. BenchmarkCompact's compact-ns/op, the figure of the issue
// 13 target, leaves the client out, and with it Eino's share of that work.
// This benchmark is context for that target, not a replacement for it.
// The server is its own, not openaitest's: that one decodes,
// checks and keeps every request, megabytes per operation here.
func BenchmarkCompactHTTP(b *testing.B) {
	ctx := context.Background()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(httpSummaryReply)
	}))
	b.Cleanup(srv.Close)
	client, err := openai.NewChatModel(ctx, &openai.ChatModelConfig{BaseURL: srv.URL, APIKey: "test", Model: "loopback-summarizer"})
	if err != nil {
		b.Fatal(err)
	}
	compactBoth(b, func() (model.BaseChatModel, func(*testing.B)) { return client, nil })
}

// httpSummaryReply is the loopback server's answer: a chat completion whose
// content is a summary of about 2 KB.
var httpSummaryReply = func() []byte {
	reply := map[string]any{
		"id": "loopback", "object": "chat.completion", "created": 0, "model": "loopback-summarizer",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": "## Summary\n" + strings.Repeat("The agent read files, ran the tests and fixed what failed. ", 34)}}},
		"usage": map[string]any{"prompt_tokens": 1000, "completion_tokens": 512, "total_tokens": 1512},
	}
	body, err := json.Marshal(reply)
	if err != nil {
		panic(err)
	}
	return body
}()

package openaitest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/openaitest"
)

// Example scripts a model that calls a tool and then answers, drives it with
// the real eino-ext client, and reads back what the client sent.
func Example() {
	ctx := context.Background()
	// docs/eino.md:openaitest:begin
	srv := openaitest.New(openaitest.Script(
		openaitest.Call(openaitest.Fn("call_1", "weather", `{"city":"Oslo"}`)).WithUsage(40, 12),
		openaitest.Text("It is 3°C in Oslo.").WithUsage(64, 8).WithCachedTokens(32),
	), openaitest.WithAPIKey("sk-test"), openaitest.WithContextLimit(8_000))
	defer srv.Close()
	chatModel, err := srv.ChatModel(ctx) // eino-ext's openai.ChatModel with srv's URL and key
	if err != nil {
		panic(err)
	}

	msgs := []*schema.Message{schema.UserMessage("Weather in Oslo?")}
	call, err := chatModel.Generate(ctx, msgs)
	if err != nil {
		panic(err)
	}
	fmt.Println(call.ToolCalls[0].Function.Name, call.ToolCalls[0].Function.Arguments)

	msgs = append(msgs, call, schema.ToolMessage("3°C, rain", "call_1"))
	answer, err := chatModel.Generate(ctx, msgs)
	if err != nil {
		panic(err)
	}
	usage := answer.ResponseMeta.Usage
	fmt.Println(answer.Content, usage.PromptTokens, "prompt tokens,", usage.PromptTokenDetails.CachedTokens, "cached")

	last := srv.Requests()[1] // every request, as parsed from the wire
	fmt.Println(len(last.Messages), "messages sent, the last from", last.Messages[2].Role)
	// docs/eino.md:openaitest:end

	// Output:
	// weather {"city":"Oslo"}
	// It is 3°C in Oslo. 64 prompt tokens, 32 cached
	// 3 messages sent, the last from tool
}

// ExampleWithReasoning runs a reasoning model: it refuses max_tokens, and the
// hidden reasoning counts against max_completion_tokens.
func ExampleWithReasoning() {
	ctx := context.Background()
	srv := openaitest.New(openaitest.Script(
		openaitest.Text("A summary."), openaitest.Text("A summary."), openaitest.Text("A summary."),
	), openaitest.WithReasoning(500))
	defer srv.Close()
	chatModel, err := srv.ChatModel(ctx)
	if err != nil {
		panic(err)
	}
	in := []*schema.Message{schema.UserMessage("Summarize.")}

	_, err = chatModel.Generate(ctx, in, model.WithMaxTokens(200))
	fmt.Println(strings.Contains(err.Error(), "Use 'max_completion_tokens' instead"))

	cut, err := chatModel.Generate(ctx, in, openai.WithMaxCompletionTokens(200))
	if err != nil {
		panic(err)
	}
	fmt.Printf("%q %s\n", cut.Content, cut.ResponseMeta.FinishReason)

	reply, err := chatModel.Generate(ctx, in, openai.WithMaxCompletionTokens(1000))
	if err != nil {
		panic(err)
	}
	usage := reply.ResponseMeta.Usage
	fmt.Println(reply.Content, usage.CompletionTokens, "completion tokens,", usage.CompletionTokensDetails.ReasoningTokens, "reasoning")

	// Output:
	// true
	// "" length
	// A summary. 503 completion tokens, 500 reasoning
}

// ExampleWithContextLimit refuses a prompt longer than the context window
// the way a provider does.
func ExampleWithContextLimit() {
	ctx := context.Background()
	srv := openaitest.New(openaitest.Script(openaitest.Text("ok")), openaitest.WithContextLimit(100))
	defer srv.Close()
	chatModel, err := srv.ChatModel(ctx)
	if err != nil {
		panic(err)
	}
	_, err = chatModel.Generate(ctx, []*schema.Message{schema.UserMessage(strings.Repeat("long text ", 50))})
	fmt.Println(strings.Contains(err.Error(), "maximum context length is 100 tokens"))
	fmt.Println(srv.Rejected()[0].Rejected)

	// Output:
	// true
	// This model's maximum context length is 100 tokens. However, your messages resulted in 126 tokens. Please reduce the length of the messages.
}

// ExampleWithAPIKey answers HTTP 401 to a client with another key.
func ExampleWithAPIKey() {
	ctx := context.Background()
	srv := openaitest.New(openaitest.Script(openaitest.Text("ok")), openaitest.WithAPIKey("sk-right"))
	defer srv.Close()
	cfg := srv.Config()
	cfg.APIKey = "sk-wrong"
	chatModel, err := openai.NewChatModel(ctx, cfg)
	if err != nil {
		panic(err)
	}
	_, err = chatModel.Generate(ctx, []*schema.Message{schema.UserMessage("hi")})
	fmt.Println(strings.Contains(err.Error(), "401"), strings.Contains(err.Error(), "sk-wrong"))

	// Output:
	// true false
}

// ExampleServer_streaming streams a reply in chunks of WithChunkSize bytes,
// with the usage in a last chunk as OpenAI sends it.
func ExampleServer_streaming() {
	ctx := context.Background()
	srv := openaitest.New(openaitest.Script(openaitest.Text("Streamed, piece by piece.").WithUsage(10, 6)),
		openaitest.WithChunkSize(5))
	defer srv.Close()
	chatModel, err := srv.ChatModel(ctx)
	if err != nil {
		panic(err)
	}
	stream, err := chatModel.Stream(ctx, []*schema.Message{schema.UserMessage("hi")})
	if err != nil {
		panic(err)
	}
	defer stream.Close()
	var chunks []*schema.Message
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			panic(err)
		}
		chunks = append(chunks, chunk)
	}
	whole, err := schema.ConcatMessages(chunks)
	if err != nil {
		panic(err)
	}
	fmt.Println(whole.Content, whole.ResponseMeta.Usage.TotalTokens, "tokens")

	// Output:
	// Streamed, piece by piece. 16 tokens
}

// Example_reasoningSummarizer makes a reasoning model the summarizer of a
// compaction: the compactor learns that max_tokens is refused and sends the
// cap as max_completion_tokens, with room for the hidden reasoning.
func Example_reasoningSummarizer() {
	ctx := context.Background()
	srv := openaitest.New(func(*openaitest.Request) (*openaitest.Reply, error) {
		return openaitest.Text("## Work completed\n- read the logs"), nil
	}, openaitest.WithReasoning(900))
	defer srv.Close()
	chatModel, err := srv.ChatModel(ctx)
	if err != nil {
		panic(err)
	}
	var round compaction.Round
	compactor, err := compaction.NewSummarizationCompactor(ctx, &compaction.SummarizationConfig{
		ChatModel:                 chatModel,
		MaxCompletionTokensOption: openai.WithMaxCompletionTokens,
		Logger:                    slog.New(slog.DiscardHandler),
		OnRound:                   func(_ context.Context, r compaction.Round) { round = r },
	})
	if err != nil {
		panic(err)
	}
	msgs := []*schema.Message{schema.SystemMessage("You read logs."), schema.UserMessage("Read the logs.")}
	for _, id := range []string{"a", "b", "c"} {
		msgs = append(msgs,
			schema.AssistantMessage("", []schema.ToolCall{{ID: id, Function: schema.FunctionCall{Name: "read", Arguments: "{}"}}}),
			schema.ToolMessage(strings.Repeat("log line ", 300), id))
	}
	out, err := compactor.Compact(ctx, msgs, 800, compaction.DefaultCounter())
	if err != nil {
		panic(err)
	}
	fmt.Println(len(msgs), "messages became", len(out))
	fmt.Println(round.CapRetries, round.OutputCap)
	for _, r := range srv.Requests() {
		fmt.Printf("max_tokens %v, max_completion_tokens %v, refused %v\n", r.MaxTokens > 0, r.MaxCompletionTokens > 0, r.Rejected != "")
	}

	// Output:
	// 8 messages became 5
	// [max_tokens_rejected reasoning_room] max_completion_tokens
	// max_tokens true, max_completion_tokens false, refused true
	// max_tokens false, max_completion_tokens true, refused false
	// max_tokens false, max_completion_tokens true, refused false
}

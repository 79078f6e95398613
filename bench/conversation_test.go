package bench

import (
	"context"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/cloudwego/eino/schema"
)

func TestConversationShape(t *testing.T) {
	t.Parallel()
	for _, n := range []int{4, 5, 17, 100, 1000} {
		msgs := Conversation(n, uint64(n))
		if len(msgs) != n {
			t.Fatalf("n=%d: got %d messages", n, len(msgs))
		}
		if msgs[0].Role != schema.System {
			t.Errorf("n=%d: first message is %s, want system", n, msgs[0].Role)
		}
		tail := msgs[n-3:]
		if len(tail[0].ToolCalls) != 2 || tail[1].Role != schema.Tool || tail[2].Role != schema.Tool {
			t.Fatalf("n=%d: tail is not a two-call step: %v %v %v", n, tail[0].Role, tail[1].Role, tail[2].Role)
		}
		for _, r := range tail[1:] {
			if len(r.Content) < TailResultBytes {
				t.Errorf("n=%d: tail result of %d bytes, want at least %d", n, len(r.Content), TailResultBytes)
			}
		}
		// Every tool result answers a call of the assistant message before it.
		pending := map[string]bool{}
		for i, m := range msgs {
			switch m.Role {
			case schema.Assistant:
				pending = map[string]bool{}
				for _, c := range m.ToolCalls {
					pending[c.ID] = true
				}
				if m.ResponseMeta == nil || m.ResponseMeta.Usage == nil || m.ResponseMeta.Usage.TotalTokens <= 0 {
					t.Errorf("n=%d: assistant %d has no usage", n, i)
				}
			case schema.Tool:
				if !pending[m.ToolCallID] {
					t.Fatalf("n=%d: orphan tool result %d (%s)", n, i, m.ToolCallID)
				}
				delete(pending, m.ToolCallID)
			}
		}
	}
}

func TestConversationMixesScriptsAndIsDeterministic(t *testing.T) {
	t.Parallel()
	a, b := Conversation(300, 7), Conversation(300, 7)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("equal seeds gave different conversations")
	}
	text := 0
	runes := 0
	for _, m := range a {
		text += len(m.Content)
		runes += utf8.RuneCountInString(m.Content)
	}
	if runes >= text {
		t.Errorf("no multi-byte text: %d runes in %d bytes", runes, text)
	}
}

func TestWithoutUsageCopies(t *testing.T) {
	t.Parallel()
	msgs := Conversation(20, 1)
	out := WithoutUsage(msgs)
	for i := range msgs {
		if out[i].ResponseMeta != nil {
			t.Fatalf("message %d kept its usage", i)
		}
		if msgs[i].Role == schema.Assistant && msgs[i].ResponseMeta == nil {
			t.Fatalf("message %d of the original lost its usage", i)
		}
	}
}

func TestSummarizerGrowsWithInput(t *testing.T) {
	t.Parallel()
	var calls []SummaryCall
	s := &Summarizer{OnCall: func(c SummaryCall) { calls = append(calls, c) }}
	ctx := context.Background()
	for _, n := range []int{40, 4000} {
		in := []*schema.Message{schema.UserMessage(string(make([]byte, n)))}
		reply, err := s.Generate(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if got := utf8.RuneCountInString(reply.Content) / 4; got != calls[len(calls)-1].OutputTokens {
			t.Errorf("summary of %d tokens, reported %d", got, calls[len(calls)-1].OutputTokens)
		}
	}
	small, large := calls[0], calls[1]
	if !(large.OutputTokens > small.OutputTokens && large.Latency > small.Latency) {
		t.Errorf("output and latency must grow with input: %+v then %+v", small, large)
	}
	// 4000 bytes render as "[user] " plus 4000 code points: 1001 tokens.
	if want := 64 + 1001/8; large.OutputTokens != want || large.InputTokens != 1001 {
		t.Errorf("got %+v, want input 1001 and output %d", large, want)
	}
}

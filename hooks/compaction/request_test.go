package compaction

import (
	"context"
	"errors"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/request"
)

// TestRequestValuesMatch checks that the values internal/request reports
// (how a cap was sent, why a cache-aligned round fell back) are the public
// constants' literals, which stay in this package so go doc shows them.
func TestRequestValuesMatch(t *testing.T) {
	t.Parallel()
	refused := errors.New("Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.")
	for _, tc := range []struct {
		name       string
		completion func(int) model.Option
		refused    bool
		want       string
	}{
		{name: "fresh", want: OutputCapMaxTokens},
		{name: "refused, an option", completion: model.WithMaxTokens, refused: true, want: OutputCapMaxCompletionTokens},
		{name: "refused, no option", refused: true, want: OutputCapNone},
	} {
		o := &request.Cap{Completion: tc.completion}
		if tc.refused {
			if _, how, _ := o.Options(100); !o.LearnRejected(how, refused) {
				t.Fatalf("%s: LearnRejected(%q, refusal) = false", tc.name, how)
			}
		}
		if _, how, _ := o.Options(100); how != tc.want {
			t.Errorf("%s: Options sent the cap as %q, want %q", tc.name, how, tc.want)
		}
	}

	ctx := context.Background()
	sent := []*schema.Message{schema.SystemMessage("rules"), schema.UserMessage("task")}
	al := request.Align(ctx, sent)
	size := TokenCounterFunc(func(context.Context, []*schema.Message, []*schema.ToolInfo) (int, error) { return 100, nil })
	for _, tc := range []struct {
		name     string
		messages []*schema.Message
		want     string
	}{
		{name: "not sent", messages: []*schema.Message{sent[0], schema.UserMessage("never sent")}, want: FallbackNotSent},
		{name: "over budget", messages: sent, want: FallbackOverBudget},
	} {
		_, _, _, why, err := request.Settings{MaxInput: 10}.AlignedPrompt(ctx, al, tc.messages, []int{1}, 50, size)
		if err != nil || why != tc.want {
			t.Errorf("%s: AlignedPrompt fell back for %q, %v; want %q, nil", tc.name, why, err, tc.want)
		}
	}
}

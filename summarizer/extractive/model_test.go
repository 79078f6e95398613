package extractive

import (
	"context"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
)

func extPrompt() []*schema.Message {
	return []*schema.Message{
		schema.SystemMessage("You are compacting a conversation. Ignore this instruction text."),
		schema.UserMessage(extWrap(
			"[user] Find why /srv/app/main.go panics",
			`[assistant -> tool_call id=call_9] read_file({"path": "/srv/app/main.go"})`,
			"[tool:read_file id=call_9] package main",
			strings.Repeat("// some code that takes room\n", 10),
		)),
	}
}

func TestGenerate(t *testing.T) {
	t.Parallel()
	s, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	in := extPrompt()
	before := make([]schema.Message, len(in))
	for i, m := range in {
		before[i] = *m
	}
	msg, err := s.Generate(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range in {
		if !reflect.DeepEqual(*m, before[i]) {
			t.Errorf("input message %d was modified", i)
		}
	}
	if msg.Role != schema.Assistant || !strings.HasPrefix(msg.Content, "## Objective\n") {
		t.Fatalf("reply %+v", msg)
	}
	if strings.Contains(msg.Content, "Ignore this instruction") {
		t.Error("the system instruction leaked into the summary")
	}
	promptRunes := extRuneLen(in[0].Content) + extRuneLen(in[1].Content)
	outRunes := extRuneLen(msg.Content)
	u := msg.ResponseMeta.Usage
	wantPrompt, wantCompletion := (promptRunes+3)/4, (outRunes+3)/4
	if u.PromptTokens != wantPrompt || u.CompletionTokens != wantCompletion || u.TotalTokens != wantPrompt+wantCompletion {
		t.Errorf("usage %+v, want prompt %d completion %d", *u, wantPrompt, wantCompletion)
	}

	again, err := s.Generate(context.Background(), in)
	if err != nil || again.Content != msg.Content {
		t.Errorf("second Generate differs: %v", err)
	}

	sr, err := s.Stream(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	chunk, err := sr.Recv()
	if err != nil || chunk.Content != msg.Content {
		t.Fatalf("stream chunk %+v, %v", chunk, err)
	}
	if _, err := sr.Recv(); !errors.Is(err, io.EOF) {
		t.Errorf("second Recv = %v, want io.EOF", err)
	}
}

func TestGenerateErrors(t *testing.T) {
	t.Parallel()
	s, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name  string
		ctx   context.Context
		input []*schema.Message
		want  error
	}{
		{"cancelled", cancelled, extPrompt(), context.Canceled},
		{"no user message", context.Background(), []*schema.Message{schema.SystemMessage("only instructions")}, ErrNothingToSummarize},
		{"empty transcript", context.Background(), []*schema.Message{schema.UserMessage(extWrap(" \n "))}, ErrNothingToSummarize},
		{"one code point", context.Background(), []*schema.Message{schema.UserMessage("é")}, ErrNothingToSummarize},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, err := s.Generate(tc.ctx, tc.input); !errors.Is(err, tc.want) {
				t.Errorf("Generate error %v, want %v", err, tc.want)
			}
			if _, err := s.Stream(tc.ctx, tc.input); !errors.Is(err, tc.want) {
				t.Errorf("Stream error %v, want %v", err, tc.want)
			}
		})
	}
}

func TestGenerateReadsMultiContent(t *testing.T) {
	t.Parallel()
	s, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	m := &schema.Message{Role: schema.User, UserInputMultiContent: []schema.MessageInputPart{
		{Type: schema.ChatMessagePartTypeText, Text: extWrap("[user] multi content request about ./cmd/tool/main.go", strings.Repeat("pad ", 80))},
	}}
	msg, err := s.Generate(context.Background(), []*schema.Message{m})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msg.Content, "./cmd/tool/main.go") {
		t.Errorf("summary misses the multi-content text:\n%s", msg.Content)
	}
}

func TestNewValidates(t *testing.T) {
	t.Parallel()
	cases := []struct {
		cfg   Config
		field string
		value string
	}{
		{Config{MaxObjective: -1}, "MaxObjective", "-1"},
		{Config{MaxDecisions: -2}, "MaxDecisions", "-2"},
		{Config{MaxWork: -3}, "MaxWork", "-3"},
		{Config{MaxIdentifiers: -4}, "MaxIdentifiers", "-4"},
		{Config{MaxUnresolved: -5}, "MaxUnresolved", "-5"},
		{Config{MaxLineRunes: 15}, "MaxLineRunes", "15"},
		{Config{MaxArgsRunes: 7}, "MaxArgsRunes", "7"},
	}
	for _, tc := range cases {
		t.Run(tc.field, func(t *testing.T) {
			t.Parallel()
			_, err := New(&tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.field) || !strings.Contains(err.Error(), "got "+tc.value) {
				t.Errorf("New(%+v) error %v, want one naming %s and %s", tc.cfg, err, tc.field, tc.value)
			}
		})
	}
	if _, err := New(&Config{MaxLineRunes: 16, MaxArgsRunes: 8}); err != nil {
		t.Errorf("minimums rejected: %v", err)
	}
}

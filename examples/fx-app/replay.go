package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"github.com/samber/lo"
)

// trajectory is an agent run to replay: what the model said and which tools
// it called at each step. Tool results are not stored; replaying runs the
// tools for real. Source says where the steps came from, so the app can say
// what it replays: "scripted" steps were written by hand (the bundled
// trajectory is one: no model chose its steps or wrote its answer), while
// "recorded" ones were saved from a live run by --record and name their
// Model and RecordedAt time.
type trajectory struct {
	Task       string         `json:"task"`
	Source     string         `json:"source"`
	Model      string         `json:"model,omitempty"`
	RecordedAt string         `json:"recorded_at,omitempty"`
	Note       string         `json:"note,omitempty"`
	Steps      []recordedStep `json:"steps"`
}

// The values of trajectory.Source.
const (
	sourceScripted = "scripted"
	sourceRecorded = "recorded"
)

// describe names what a replay of t plays back, for the app's output.
func (t *trajectory) describe() string {
	if t.Source == sourceRecorded {
		return fmt.Sprintf("a run of %s recorded with --record at %s (%d steps)", t.Model, t.RecordedAt, len(t.Steps))
	}
	return fmt.Sprintf("a scripted trajectory written by hand for the demo (%d steps), not a model's run", len(t.Steps))
}

type recordedStep struct {
	Content   string         `json:"content"`
	ToolCalls []recordedCall `json:"tool_calls,omitempty"`
}

type recordedCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

func parseTrajectory(data []byte) (*trajectory, error) {
	var t trajectory
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("trajectory: %w", err)
	}
	switch {
	case t.Source == sourceScripted && (t.Model != "" || t.RecordedAt != ""):
		return nil, fmt.Errorf("trajectory: a scripted trajectory names no model and no recording time (got model %q, recorded_at %q): no model ran it", t.Model, t.RecordedAt)
	case t.Source == sourceRecorded && (t.Model == "" || t.RecordedAt == ""):
		return nil, fmt.Errorf("trajectory: a recorded trajectory needs the model and recorded_at of the run it was recorded from")
	case t.Source != sourceScripted && t.Source != sourceRecorded:
		return nil, fmt.Errorf("trajectory: source %q: want %q (steps written by hand) or %q (saved from a live run by --record)", t.Source, sourceScripted, sourceRecorded)
	}
	if len(t.Steps) == 0 {
		return nil, fmt.Errorf("trajectory: no steps")
	}
	if last := t.Steps[len(t.Steps)-1]; len(last.ToolCalls) > 0 {
		return nil, fmt.Errorf("trajectory: the last step (%d) calls tools; a run to replay ends with an answer", len(t.Steps))
	}
	for i, s := range t.Steps {
		for _, c := range s.ToolCalls {
			if c.ID == "" || c.Name == "" || !json.Valid(c.Arguments) {
				return nil, fmt.Errorf("trajectory: step %d: tool call %q needs an id, a name and JSON arguments", i+1, c.ID)
			}
		}
	}
	return &t, nil
}

// replayModel is a model.ToolCallingChatModel that answers with the steps of
// a trajectory, in order, so the demo runs offline and the same way
// every time. It checks that the conversation it is sent carries the results
// of the calls it made at the previous step (compaction must never lose
// them) and reports usage the way a provider would: prompt tokens computed by
// providerTokens on what it was actually sent, so compaction shows in the
// numbers. No provider counts them: they are the replay's own arithmetic.
type replayModel struct {
	traj  *trajectory
	tools []*schema.ToolInfo
	cur   *cursor
	delay time.Duration // how long each reply takes (--model-latency)
	// settle, when set, runs before each reply is returned: the offline
	// demo waits there for the compactions prepared in the background (see
	// newAgentModel).
	settle func(context.Context) error
}

type cursor struct {
	mu   sync.Mutex
	next int
}

var _ model.ToolCallingChatModel = (*replayModel)(nil)

func newReplayModel(t *trajectory) *replayModel {
	return &replayModel{traj: t, cur: &cursor{}}
}

// WithTools implements model.ToolCallingChatModel. The copy shares the
// position in the trajectory.
func (r *replayModel) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	return &replayModel{traj: r.traj, tools: slices.Clone(tools), cur: r.cur, delay: r.delay, settle: r.settle}, nil
}

// Generate implements model.BaseChatModel.
func (r *replayModel) Generate(ctx context.Context, input []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	if err := sleepCtx(ctx, r.delay); err != nil {
		return nil, err
	}
	r.cur.mu.Lock()
	defer r.cur.mu.Unlock()
	i := r.cur.next
	if i >= len(r.traj.Steps) {
		return nil, fmt.Errorf("replay: the trajectory has %d steps and the agent asked for step %d", len(r.traj.Steps), i+1)
	}
	if i > 0 {
		if err := resultsPresent(input, r.traj.Steps[i-1].ToolCalls); err != nil {
			return nil, fmt.Errorf("replay: step %d: %w", i+1, err)
		}
	}
	r.cur.next++
	step := r.traj.Steps[i]
	msg := schema.AssistantMessage(step.Content, nil)
	finish := "stop"
	for _, c := range step.ToolCalls {
		var args bytes.Buffer
		if err := json.Compact(&args, c.Arguments); err != nil {
			return nil, fmt.Errorf("replay: step %d: %w", i+1, err)
		}
		msg.ToolCalls = append(msg.ToolCalls, schema.ToolCall{ID: c.ID, Type: "function",
			Function: schema.FunctionCall{Name: c.Name, Arguments: args.String()}})
		finish = "tool_calls"
	}
	prompt, completion := providerTokens(input, r.tools), completionTokens(msg)
	msg.ResponseMeta = &schema.ResponseMeta{FinishReason: finish, Usage: &schema.TokenUsage{
		PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion}}
	if r.settle != nil {
		if err := r.settle(ctx); err != nil {
			return nil, err
		}
	}
	return msg, nil
}

// Stream implements model.BaseChatModel with the whole reply as one chunk.
func (r *replayModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := r.Generate(ctx, input, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

// GetType names the model for Eino callbacks.
func (r *replayModel) GetType() string { return "Replay" }

// resultsPresent checks that every call of the previous step has its result
// at the end of the conversation.
func resultsPresent(input []*schema.Message, calls []recordedCall) error {
	have := map[string]bool{}
	for j := len(input) - 1; j >= 0 && input[j].Role == schema.Tool; j-- {
		have[input[j].ToolCallID] = true
	}
	if c, missing := lo.Find(calls, func(c recordedCall) bool { return !have[c.ID] }); missing {
		return fmt.Errorf("the result of tool call %s (%s) is missing from the conversation", c.ID, c.Name)
	}
	return nil
}

// Token accounting of a typical BPE tokenizer on English and code: about
// 3.6 characters a token, a few tokens of framing per message, and the tool
// schemas sent as JSON. Deliberately not the approximate counter's formula,
// so the demo shows how a local estimate and a provider's count differ.
const (
	providerCharsPerToken  = 3.6
	providerTokensPerMsg   = 4
	providerTokensPerReply = 3
)

func providerTokens(msgs []*schema.Message, tools []*schema.ToolInfo) int {
	chars := 0
	for _, m := range msgs {
		chars += utf8.RuneCountInString(m.Content)
		for _, c := range m.ToolCalls {
			chars += utf8.RuneCountInString(c.Function.Name) + utf8.RuneCountInString(c.Function.Arguments)
		}
	}
	for _, t := range tools {
		if b, err := json.Marshal(t); err == nil {
			chars += utf8.RuneCount(b)
		}
	}
	return int(float64(chars)/providerCharsPerToken) + providerTokensPerMsg*len(msgs) + providerTokensPerReply
}

func completionTokens(m *schema.Message) int {
	chars := utf8.RuneCountInString(m.Content)
	for _, c := range m.ToolCalls {
		chars += utf8.RuneCountInString(c.Function.Name) + utf8.RuneCountInString(c.Function.Arguments)
	}
	return int(float64(chars)/providerCharsPerToken) + 1
}

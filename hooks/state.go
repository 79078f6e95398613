package hooks

import (
	"time"

	"github.com/cloudwego/eino/schema"
)

// State is the live state of one agent run, shared by every hook at every point.
//
// A hook may mutate the fields in place. To rewrite the conversation, assign a
// new slice to Messages; never modify the *schema.Message values already in it,
// since the caller and earlier snapshots may share them.
type State struct {
	// Messages is the conversation, oldest first.
	Messages []*schema.Message
	// Tools are the tool schemas sent with the next model call.
	Tools []*schema.ToolInfo
	// ContextTokens is the provider-reported size of the last model call
	// (prompt + completion). Zero means unknown: count everything locally.
	ContextTokens int
	// StepCount is the number of completed steps (model calls that were
	// answered). Steps are numbered once for the whole project: step N is
	// the run's Nth model call, counting from 1, so hooks at BeforeLLM,
	// BeforeTool and AfterTool run in step StepCount+1 (agent events carry
	// that number), and a compaction is shown as coming before that step
	// (compaction.Report.BeforeStep) in logs, reports and the inspector.
	StepCount int
	// LastModelCallAt is when the reply of the previous model call of this
	// conversation arrived (set by the agent package and the Eino
	// integrations after each model call; a caller resuming a conversation
	// may set it from its own records). A provider's prompt cache lives
	// for minutes after its last use, so the time since then tells a hook
	// whether the coming call finds anything cached (compaction.Prices
	// CacheTTL). The zero time means unknown, taken as a warm cache.
	LastModelCallAt time.Time

	// TokenUsage accumulates the provider-reported usage of the agent's model calls.
	TokenUsage schema.TokenUsage
	// ToolCallCounts counts tool executions by tool name.
	ToolCallCounts map[string]int
	// PendingToolCalls are the calls the last model reply asked for. At
	// BeforeTool a hook may trim or clear them to change what runs.
	PendingToolCalls []schema.ToolCall
	// ExitReason says why the run ended: "text" for a final answer,
	// "max_steps" when the step budget ran out, or "stop" when a hook set StopRun.
	ExitReason string
	// ContinueRun, set by an OnExit hook, keeps the run going after a final answer.
	ContinueRun bool
	// StopRun, set by any hook, ends the run at the top of the next step, after
	// that step's BeforeLLM hooks have run.
	StopRun bool
	// Values is free storage for hooks that cooperate within one run.
	Values map[string]any
}

package agent

import "github.com/cloudwego/eino/schema"

// Exit reasons reported in Result.ExitReason and hooks.State.ExitReason.
const (
	// ExitText: the model answered without calling a tool.
	ExitText = "text"
	// ExitMaxSteps: the run used Config.MaxSteps model calls without a final answer.
	ExitMaxSteps = "max_steps"
	// ExitStop: a hook set hooks.State.StopRun.
	ExitStop = "stop"
)

// Result is the outcome of a run.
type Result struct {
	// Message is the last message of the conversation: the final answer when
	// ExitReason is ExitText (unless an on_exit hook appended after it).
	Message *schema.Message
	// Messages is the whole conversation at the end of the run, as compacted by
	// any hooks, final answer included. Pass it (plus the next user message) to
	// the next Run to continue the chat without re-sending, and re-compacting,
	// the original history.
	Messages []*schema.Message
	// ExitReason is ExitText, ExitMaxSteps or ExitStop.
	ExitReason string
	// StepCount is the number of completed steps, including any a before_run
	// hook restored.
	StepCount int
	// TokenUsage sums the provider-reported usage of this run's model calls.
	// A summarizer's calls are not included: they belong to the compaction.
	TokenUsage schema.TokenUsage
	// ContextTokens is the provider-reported size of the last model call, 0 if unknown.
	ContextTokens int
	// ToolCallCounts counts this run's tool executions by tool name.
	ToolCallCounts map[string]int
	// Values is hooks.State.Values at the end of the run: whatever hooks chose
	// to report.
	Values map[string]any
}

package agent

import "github.com/cloudwego/eino/schema"

// EventKind says what an Event carries.
type EventKind string

// The kinds of Event a Stream yields, in the order a step produces them.
const (
	// EventMessageChunk carries one streamed fragment of a model reply;
	// schema.ConcatMessages over a step's chunks gives the whole reply.
	EventMessageChunk EventKind = "message_chunk"
	// EventToolResult carries one complete tool-result message.
	EventToolResult EventKind = "tool_result"
	// EventDone is the last event of a successful run; it carries the Result.
	EventDone EventKind = "done"
)

// Event is one item of the stream returned by Agent.Stream.
type Event struct {
	// Kind says which of the other fields are set.
	Kind EventKind
	// Step is the 1-based step the event belongs to (for EventDone, the final StepCount).
	Step int
	// Message is set for EventMessageChunk and EventToolResult.
	Message *schema.Message
	// Result is set for EventDone.
	Result *Result
}

// Package message reads what a compactor needs of one message: its
// compaction marker (the map a compactor writes under marker.Key in
// schema.Message.Extra) and its role in the conversation (a real user's
// message, a tool result, the last assistant reply, the reasoning a client
// sends back).
//
// It is the lowest layer under hooks/compaction and uses no other package of
// it; the public names of hooks/compaction (MarkerFields, IsRealUser,
// ReasoningSent, ...) call it.
package message

import (
	"encoding/json"
	"math"
	"reflect"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/internal/marker"
)

// The marker strategies of the three compactors. Marker strategies name what
// was done; the fx configuration and the einocompact command name what to do
// ("summarize", "slide", "prune") and accept these names as other spellings.
const (
	// StrategySummarization marks SummarizationCompactor's summaries.
	StrategySummarization = "summarization"
	// StrategySlidingWindow marks SlidingWindowCompactor's omission notes.
	StrategySlidingWindow = "sliding_window"
	// StrategyToolResultPruning marks tool results replaced by
	// ToolResultPruningCompactor.
	StrategyToolResultPruning = "tool_result_pruning"
)

// LastAssistant returns the index of the last assistant message, or -1.
func LastAssistant(messages []*schema.Message) int {
	for i := len(messages) - 1; i >= 0; i-- {
		if m := messages[i]; m != nil && m.Role == schema.Assistant {
			return i
		}
	}
	return -1
}

// IsRealUser reports whether msg is a user message the user wrote: user role
// and no compaction marker key.
func IsRealUser(msg *schema.Message) bool {
	return msg != nil && msg.Role == schema.User && !HasKey(msg)
}

// IsToolResult reports whether msg carries a tool call's result.
func IsToolResult(msg *schema.Message) bool {
	return msg != nil && msg.Role == schema.Tool
}

// ReasoningSent returns the reasoning text of msg that a chat model client
// sends back to the provider with the message, "" when none is sent.
//
// The rule is the eino-ext OpenAI client's (libs/acl/openai v0.1.17, which
// writes ReasoningContent as "reasoning_content"): a message with
// UserInputMultiContent parts is sent without it; otherwise a message with
// AssistantGenMultiContent parts, or with no parts at all, carries it; a
// message with only the deprecated MultiContent parts does not.
func ReasoningSent(msg *schema.Message) string {
	if msg == nil || msg.ReasoningContent == "" || len(msg.UserInputMultiContent) > 0 {
		return ""
	}
	if len(msg.AssistantGenMultiContent) == 0 && len(msg.MultiContent) > 0 {
		return ""
	}
	return msg.ReasoningContent
}

// Fields finds the marker map of msg, accepting any map with string keys so
// that values decoded by other libraries still read. The map returned may be
// msg's own: callers read it and never write to it. It reports false when msg
// has no marker or the marker is not such a map.
func Fields(msg *schema.Message) (map[string]any, bool) {
	if msg == nil || msg.Extra == nil {
		return nil, false
	}
	raw, ok := msg.Extra[marker.Key]
	if !ok || raw == nil {
		return nil, false
	}
	if m, ok := raw.(map[string]any); ok {
		return m, true
	}
	v := reflect.ValueOf(raw)
	if v.Kind() != reflect.Map || v.Type().Key().Kind() != reflect.String {
		return nil, false
	}
	out := make(map[string]any, v.Len())
	iter := v.MapRange()
	for iter.Next() {
		out[iter.Key().String()] = iter.Value().Interface()
	}
	return out, true
}

// CopyFields returns a copy of the marker map of msg, for strategies that
// store more than a strategy and a count. It reports false when msg carries
// no well-formed marker (a map whose "strategy" is a string).
func CopyFields(msg *schema.Message) (map[string]any, bool) {
	fields, ok := Fields(msg)
	if !ok {
		return nil, false
	}
	if _, ok := fields["strategy"].(string); !ok {
		return nil, false
	}
	out := make(map[string]any, len(fields))
	for k, v := range fields {
		out[k] = v
	}
	return out, true
}

// HasKey reports whether msg carries marker.Key at all, whatever its value.
// Any such message is compactor-made as far as planning goes: it can never be
// the user's current request.
func HasKey(msg *schema.Message) bool {
	if msg == nil || msg.Extra == nil {
		return false
	}
	_, ok := msg.Extra[marker.Key]
	return ok
}

// Is reports whether msg carries a well-formed marker of strategy: a marker
// map whose "strategy" is a non-empty string equal to strategy.
func Is(msg *schema.Message, strategy string) bool {
	fields, ok := Fields(msg)
	if !ok {
		return false
	}
	s, ok := fields["strategy"].(string)
	return ok && s != "" && s == strategy
}

// NewFields returns the Extra value for a marker: a fresh map holding
// strategy, summarized_messages when n > 0, and the extra fields given.
func NewFields(strategy string, n int, fields map[string]any) map[string]any {
	out := make(map[string]any, len(fields)+2)
	for k, v := range fields {
		out[k] = v
	}
	out["strategy"] = strategy
	if n > 0 {
		out["summarized_messages"] = n
	}
	return out
}

// Int reads a whole number stored in a marker field as any integer type, a
// float64 without a fraction, or a json.Number (what JSON and gob round trips
// produce). It reports false for anything else, and for an unsigned value
// too large for int.
func Int(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case int8, int16, int32, int64, uint8, uint16, uint32:
		return int(Int64(x)), true
	case uint:
		return Int(uint64(x))
	case uint64:
		if x > math.MaxInt64 {
			return 0, false
		}
		return int(x), true
	case float64:
		if x != math.Trunc(x) || math.IsInf(x, 0) || math.Abs(x) > 1<<53 {
			return 0, false
		}
		return int(x), true
	case float32:
		return Int(float64(x))
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return int(i), true
		}
		if f, err := x.Float64(); err == nil {
			return Int(f)
		}
	}
	return 0, false
}

// Int64 converts a value of a fixed-size integer type or uint to int64, a
// uint64 past math.MaxInt64 wrapping round; any other value gives 0.
func Int64(v any) int64 {
	switch x := v.(type) {
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case int64:
		return x
	case uint:
		return int64(x)
	case uint8:
		return int64(x)
	case uint16:
		return int64(x)
	case uint32:
		return int64(x)
	case uint64:
		return int64(x)
	}
	return 0
}

package compaction

import (
	"encoding/json"
	"math"
	"reflect"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/internal/marker"
)

// MetaKey is the schema.Message.Extra key under which a compactor marks the
// messages it wrote. Its value is a map[string]any holding at least "strategy".
// This is the key's one public name (einoint.MetaKey is a deprecated alias).
const MetaKey = marker.Key

// StrategySummarization is the marker strategy of SummarizationCompactor's
// summaries. Marker strategies name what was done; the fx configuration and
// the einocompact command name what to do ("summarize", "slide", "prune")
// and accept these marker names as other spellings.
const StrategySummarization = "summarization"

// Marker is the decoded compaction marker of a message.
type Marker struct {
	// Strategy names the compactor that wrote the message, e.g. StrategySummarization.
	Strategy string
	// SummarizedMessages is how many messages a summary replaced; 0 for other strategies.
	SummarizedMessages int
}

// MarkerOf reads the compaction marker of msg. It reports false when msg has
// no marker or the marker is malformed (not a map, or without a string
// "strategy"). Counts stored as int, int64, float64 or json.Number (what JSON
// and gob round trips produce) are all accepted. It never panics, whatever
// Extra holds.
func MarkerOf(msg *schema.Message) (Marker, bool) {
	fields, ok := markerFields(msg)
	if !ok {
		return Marker{}, false
	}
	strategy, ok := fields["strategy"].(string)
	if !ok || strategy == "" {
		return Marker{}, false
	}
	n, _ := markerInt(fields["summarized_messages"])
	return Marker{Strategy: strategy, SummarizedMessages: n}, true
}

// MarkerFields returns a copy of the marker map of msg, for strategies that
// store more than Marker holds. It reports false when msg carries no
// well-formed marker.
func MarkerFields(msg *schema.Message) (map[string]any, bool) {
	fields, ok := markerFields(msg)
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

// HasMarkerKey reports whether msg carries MetaKey at all, whatever its value.
// Any such message is compactor-made as far as planning goes: it can never be
// the user's current request.
func HasMarkerKey(msg *schema.Message) bool {
	if msg == nil || msg.Extra == nil {
		return false
	}
	_, ok := msg.Extra[MetaKey]
	return ok
}

// IsStrategy reports whether msg carries a well-formed marker of strategy.
func IsStrategy(msg *schema.Message, strategy string) bool {
	m, ok := MarkerOf(msg)
	return ok && m.Strategy == strategy
}

// NewMarker returns the Extra value for a marker: a fresh map holding
// strategy, summarized_messages when n > 0, and the extra fields given.
func NewMarker(strategy string, n int, fields map[string]any) map[string]any {
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

// markerFields finds the marker map, accepting any map with string keys so
// that values decoded by other libraries still read.
func markerFields(msg *schema.Message) (map[string]any, bool) {
	if msg == nil || msg.Extra == nil {
		return nil, false
	}
	raw, ok := msg.Extra[MetaKey]
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

// markerInt reads a whole number stored in a marker field as any integer
// type, a float64 without a fraction, or a json.Number.
func markerInt(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case int8, int16, int32, int64, uint8, uint16, uint32:
		return int(toInt64(x)), true
	case uint:
		return markerInt(uint64(x))
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
		return markerInt(float64(x))
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return int(i), true
		}
		if f, err := x.Float64(); err == nil {
			return markerInt(f)
		}
	}
	return 0, false
}

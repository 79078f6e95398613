package compaction

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
	"testing"

	"github.com/cloudwego/eino/schema"
)

func TestMarkerOf(t *testing.T) {
	t.Parallel()
	withExtra := func(v any) *schema.Message {
		m := user("x")
		m.Extra = map[string]any{MetaKey: v}
		return m
	}
	tests := []struct {
		name string
		msg  *schema.Message
		want Marker
		ok   bool
	}{
		{"nil message", nil, Marker{}, false},
		{"no extra", user("x"), Marker{}, false},
		{"summary", summary("s", 3), Marker{StrategySummarization, 3}, true},
		{"int64", withExtra(map[string]any{"strategy": "summarization", "summarized_messages": int64(5)}), Marker{"summarization", 5}, true},
		{"float64", withExtra(map[string]any{"strategy": "summarization", "summarized_messages": 5.0}), Marker{"summarization", 5}, true},
		{"json.Number", withExtra(map[string]any{"strategy": "summarization", "summarized_messages": json.Number("7")}), Marker{"summarization", 7}, true},
		{"fractional count ignored", withExtra(map[string]any{"strategy": "summarization", "summarized_messages": 2.5}), Marker{"summarization", 0}, true},
		{"other strategy", note("sliding_window", "gone"), Marker{"sliding_window", 0}, true},
		{"string marker", withExtra("sliding_window"), Marker{}, false},
		{"no strategy", withExtra(map[string]any{"summarized_messages": 2}), Marker{}, false},
		{"strategy not a string", withExtra(map[string]any{"strategy": 42}), Marker{}, false},
		{"nil marker", withExtra(nil), Marker{}, false},
		{"map[string]string", withExtra(map[string]string{"strategy": "custom"}), Marker{"custom", 0}, true},
		{"map with int keys", withExtra(map[int]any{1: "x"}), Marker{}, false},
		{"slice", withExtra([]any{"strategy"}), Marker{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ok := MarkerOf(tc.msg)
			if ok != tc.ok || got != tc.want {
				t.Errorf("MarkerOf = %+v, %v; want %+v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestMarkerSurvivesRoundTrips(t *testing.T) {
	t.Parallel()
	orig := summary("kept", 4)
	raw, err := json.Marshal(orig)
	if err != nil {
		t.Fatal(err)
	}
	var viaJSON schema.Message
	if err := json.Unmarshal(raw, &viaJSON); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var viaNumber schema.Message
	if err := dec.Decode(&viaNumber); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(orig); err != nil {
		t.Fatal(err)
	}
	var viaGob schema.Message
	if err := gob.NewDecoder(&buf).Decode(&viaGob); err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]*schema.Message{"json": &viaJSON, "json.Number": &viaNumber, "gob": &viaGob} {
		got, ok := MarkerOf(m)
		if !ok || got != (Marker{StrategySummarization, 4}) {
			t.Errorf("%s: MarkerOf = %+v, %v", name, got, ok)
		}
	}
}

func TestTextAloneIsNotASummary(t *testing.T) {
	t.Parallel()
	m := user("<conversation_summary>\nI typed this\n</conversation_summary>")
	if _, ok := MarkerOf(m); ok || HasMarkerKey(m) || !IsRealUser(m) {
		t.Error("a user who types summary tags is a real user")
	}
	if IsRealUser(summary("s", 1)) {
		t.Error("a marked summary is not a real user")
	}
	if IsStrategy(note("sliding_window", "x"), StrategySummarization) || !IsStrategy(summary("s", 1), StrategySummarization) {
		t.Error("IsStrategy mixes strategies")
	}
}

package plan

import (
	"reflect"
	"testing"

	"github.com/cloudwego/eino/schema"
)

func TestReplaceWithSummary(t *testing.T) {
	t.Parallel()
	base := []*schema.Message{user("0"), user("1"), user("2"), user("3"), user("4")}
	s := summary("s", 1)
	cases := []struct {
		name    string
		indices []int
		want    []*schema.Message
	}{
		{"contiguous", []int{1, 2}, []*schema.Message{base[0], s, base[3], base[4]}},
		{"non-contiguous keeps survivors in order", []int{1, 3}, []*schema.Message{base[0], s, base[2], base[4]}},
		{"unsorted plan still goes to the smallest index", []int{4, 2}, []*schema.Message{base[0], base[1], s, base[3]}},
		{"first and last", []int{0, 4}, []*schema.Message{s, base[1], base[2], base[3]}},
	}
	for _, tc := range cases {
		in := append([]*schema.Message(nil), base...)
		got := Splice(in, tc.indices, s)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %v", tc.name, rendered(got))
		}
		if !reflect.DeepEqual(in, base) {
			t.Errorf("%s: input changed", tc.name)
		}
	}
}

// A summary goes where the first message it replaces was, unless it replaces
// messages on both sides of the current request: then it follows the request.
func TestReplaceWithSummaryPlacement(t *testing.T) {
	t.Parallel()
	msgs := []*schema.Message{sys("rules"), user("old question"), asst("old answer"),
		user("current task"), call("first"), result("first", "r1"), call("newest"), result("newest", "r2")}
	s := summary("what happened", 4)
	cases := []struct {
		name    string
		indices []int
		want    []*schema.Message
	}{
		{"history only", []int{1, 2}, []*schema.Message{msgs[0], s, msgs[3], msgs[4], msgs[5], msgs[6], msgs[7]}},
		{"steps only", []int{4, 5}, []*schema.Message{msgs[0], msgs[1], msgs[2], msgs[3], s, msgs[6], msgs[7]}},
		{"both sides of the request", []int{1, 2, 4, 5}, []*schema.Message{msgs[0], msgs[3], s, msgs[6], msgs[7]}},
	}
	for _, tc := range cases {
		before := cloneAll(msgs)
		got := Splice(msgs, tc.indices, s)
		if len(got) != len(tc.want) {
			t.Fatalf("%s: %d messages, want %d", tc.name, len(got), len(tc.want))
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: message %d is %q, want %q", tc.name, i, got[i].Content, tc.want[i].Content)
			}
		}
		if !reflect.DeepEqual(msgs, before) {
			t.Errorf("%s: the caller's messages changed", tc.name)
		}
	}
}

// An empty selection replaces nothing: the conversation comes back as it
// was, and the placement rule must not panic on it.
func TestReplaceWithSummaryEmptyIndices(t *testing.T) {
	t.Parallel()
	msgs := []*schema.Message{sys("rules"), user("current task")}
	got := Splice(msgs, nil, summary("s", 0))
	if len(got) != len(msgs) {
		t.Fatalf("%d messages, want the %d given", len(got), len(msgs))
	}
}

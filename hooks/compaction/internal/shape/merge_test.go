package shape

import (
	"slices"
	"testing"

	"github.com/cloudwego/eino/schema"
)

func TestMergeAppended(t *testing.T) {
	t.Parallel()
	a, b, c, x, y := user("a"), asst("b"), user("c"), user("x"), asst("y")
	snapshot := []*schema.Message{a, b, c}
	compacted := []*schema.Message{summary("s", 2), c}
	tests := []struct {
		name    string
		current []*schema.Message
		want    []*schema.Message
		ok      bool
	}{
		{"nothing appended", []*schema.Message{a, b, c}, compacted, true},
		{"two appended", []*schema.Message{a, b, c, x, y}, []*schema.Message{compacted[0], c, x, y}, true},
		{"rewritten in place", []*schema.Message{a, x, c}, nil, false},
		{"rewritten shorter", []*schema.Message{a, b}, nil, false},
		{"replaced wholesale", []*schema.Message{x}, nil, false},
		{"a copy with equal content is the same message", []*schema.Message{a, asst("b"), c, x}, []*schema.Message{compacted[0], c, x}, true},
		{"equal text from another role is not", []*schema.Message{a, user("b"), c}, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ok := MergeAppended(snapshot, tc.current, compacted)
			if ok != tc.ok || !slices.Equal(got, tc.want) {
				t.Fatalf("MergeAppended = %v, %v; want %v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

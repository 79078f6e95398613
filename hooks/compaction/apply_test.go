package compaction

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
)

func TestReplaceWithSummary(t *testing.T) {
	t.Parallel()
	base := []*schema.Message{user("0"), user("1"), user("2"), user("3"), user("4")}
	s := NewSummaryMessage("s", 1)
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
		got := replaceWithSummary(in, tc.indices, s)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %v", tc.name, Render(got, RenderOptions{}))
		}
		if !reflect.DeepEqual(in, base) {
			t.Errorf("%s: input changed", tc.name)
		}
	}
}

func TestApplySummaryChecksSize(t *testing.T) {
	t.Parallel()
	msgs := []*schema.Message{sys("rules"), user(rep("long ", 40)), asst("ok"), user("task")}
	before := count(fc1, msgs...)
	plan := Plan{Tier: TierHistoricalTurns, Indices: []int{1, 2}}
	next, after, err := applySummary(context.Background(), msgs, plan, "short", nil, before, fc1)
	if err != nil {
		t.Fatal(err)
	}
	// 7+200 and 12+2 chars plus a separator leave; 54+5 chars arrive.
	if after != before-(207+14+1)+59 || len(next) != 3 || after != count(fc1, next...) {
		t.Errorf("after = %d (%d messages), before %d", after, len(next), before)
	}
	_, _, err = applySummary(context.Background(), msgs, plan, rep("y", 300), nil, before, fc1)
	if !errors.Is(err, ErrSummaryNotSmaller) || !strings.Contains(err.Error(), "tokens before and") {
		t.Errorf("err = %v", err)
	}
}

package compaction

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
)

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

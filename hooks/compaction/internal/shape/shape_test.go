package shape

import (
	"reflect"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/notation"
)

// The test notation (internal/notation).
var (
	sys     = notation.Sys
	user    = notation.User
	asst    = notation.Asst
	call    = notation.Call
	result  = notation.Result
	summary = notation.Summary
	rep     = notation.Rep
)

// fresh is a system prompt, a request and two calls with their results.
func fresh() []*schema.Message {
	return []*schema.Message{
		sys("rules"), user("start"),
		call("c1"), result("c1", rep("first result ", 12)),
		call("c2"), result("c2", rep("second result ", 12)),
	}
}

func TestTurnUnitsShape(t *testing.T) {
	t.Parallel()
	msgs := []*schema.Message{user("q"), asst("a"), user("q2"), call("x"), result("x", "r"), asst("done")}
	got := turnUnits(msgs, [][]int{{0, 1}, {2, 3, 4, 5}})
	want := [][]int{{0, 1}, {2, 3, 4}, {5}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("units %v, want %v", got, want)
	}
	if got := turnUnits(msgs, [][]int{{0}}); !reflect.DeepEqual(got, [][]int{{0}}) {
		t.Errorf("a request alone is one unit: %v", got)
	}
}

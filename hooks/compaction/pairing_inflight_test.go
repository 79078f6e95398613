package compaction

import (
	"slices"
	"testing"

	"github.com/cloudwego/eino/schema"
)

// TestHookRefusesDroppingTheLastResults: a call is only in flight when it
// was in flight in what the compactor was given. A compactor that drops the
// results of the newest call leaves that call last, which must not pass for
// in flight: the provider would reject the next request.
func TestHookRefusesDroppingTheLastResults(t *testing.T) {
	t.Parallel()
	in := fresh() // ends with call c2 and its result
	tests := []struct {
		name    string
		input   []*schema.Message
		reply   []*schema.Message
		wantErr error
	}{
		{"results of the last call dropped", in, in[:len(in)-1], ErrBrokenToolPairing},
		{"a call in flight in the input stays in flight", append(slices.Clone(in[:4]), asst(rep("long answer ", 40)), call("c9")),
			[]*schema.Message{in[0], in[1], call("c9")}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			decideWithReply(t, tc.input, tc.reply, tc.wantErr)
		})
	}
}

package ledger

import (
	"context"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/count"
	"github.com/einocompact/einocompact/hooks/compaction/internal/notation"
)

// The test notation (internal/notation).
var (
	user    = notation.User
	summary = notation.Summary
)

// defaultCounter is the default approximate counter (its zero value).
func defaultCounter() *count.Approx { return count.NewApprox(count.Settings{}) }

func countOf(fc count.Counter, messages ...*schema.Message) int {
	n, err := fc.Count(context.Background(), messages, nil)
	if err != nil {
		panic(err)
	}
	return n
}

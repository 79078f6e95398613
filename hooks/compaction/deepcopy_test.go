package compaction

import (
	"bytes"
	"encoding/gob"

	"github.com/cloudwego/eino/schema"
)

// deepCopy copies a message through gob, which keeps int marker values as
// int (JSON would turn them into float64), so reflect.DeepEqual against the
// copy detects any mutation.
func deepCopy(m *schema.Message) *schema.Message {
	if m == nil {
		return nil
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(m); err != nil {
		panic(err)
	}
	var out schema.Message
	if err := gob.NewDecoder(&buf).Decode(&out); err != nil {
		panic(err)
	}
	return &out
}

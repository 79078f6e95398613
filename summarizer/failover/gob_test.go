package failover

import (
	"bytes"
	"context"
	"encoding/gob"
	"log/slog"
	"reflect"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"
)

// TestAttemptsSurvivePlainGob: a failover Model may serve as an agent's own
// chat model, so its reply, attempts in Extra included, ends up in Eino
// checkpoints, which gob encodes. The caller registers nothing.
func TestAttemptsSurvivePlainGob(t *testing.T) {
	t.Parallel()
	m, err := New(&Config{
		Candidates: []Candidate{{Name: "a", Model: &script{steps: []string{"err:503"}}}, {Name: "b", Model: &script{steps: []string{"ok:fine"}}}},
		BaseDelay:  time.Millisecond,
		Logger:     slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	reply, err := m.Generate(context.Background(), []*schema.Message{schema.UserMessage("x")})
	if err != nil {
		t.Fatal(err)
	}
	want := Attempts(reply)
	if len(want) != 2 {
		t.Fatalf("%d attempts recorded, want 2", len(want))
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(reply); err != nil {
		t.Fatalf("gob encode: %v", err)
	}
	var back schema.Message
	if err := gob.NewDecoder(&buf).Decode(&back); err != nil {
		t.Fatalf("gob decode: %v", err)
	}
	if got := Attempts(&back); !reflect.DeepEqual(got, want) {
		t.Errorf("attempts after gob = %+v, want %+v", got, want)
	}
}

package agent

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/openaitest"
)

// A nil message is refused before anything runs, by Run and by Stream, with
// an error naming its index.
func TestNilMessageIsRejected(t *testing.T) {
	t.Parallel()
	a, srv := newTestAgent(t, Config{Instruction: "be brief"}, openaitest.Text("never"))
	in := []*schema.Message{schema.UserMessage("q"), nil}
	_, runErr := a.Run(context.Background(), in)
	_, streamErr := a.Stream(context.Background(), in)
	for name, err := range map[string]error{"Run": runErr, "Stream": streamErr} {
		if !errors.Is(err, ErrInvalidInput) || !strings.Contains(err.Error(), "messages[1]") {
			t.Errorf("%s = %v, want ErrInvalidInput naming messages[1]", name, err)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the model was called %d times", n)
	}
}

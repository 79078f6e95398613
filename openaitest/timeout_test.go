package openaitest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"
)

// A server that never answers must fail the client's request at the client
// timeout. The ctx deadline is only a guard, many times longer, so that a
// missing timeout fails the test instead of hanging it.
func TestChatModelRequestsTimeOut(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := New(func(*Request) (*Reply, error) {
		<-release
		return Text("too late"), nil
	}, WithClientTimeout(50*time.Millisecond))
	// Unblock the handler before Close waits for it.
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	cm, err := srv.ChatModel(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = cm.Generate(ctx, []*schema.Message{schema.UserMessage("q")})
	if err == nil || !strings.Contains(err.Error(), "Client.Timeout exceeded") {
		t.Fatalf("Generate = %v, want the client's timeout", err)
	}
	if c := srv.Client(); c.Timeout != 50*time.Millisecond {
		t.Errorf("Client().Timeout = %v, want 50ms", c.Timeout)
	}
	if c := Start(t, Script()).Client(); c.Timeout != DefaultClientTimeout {
		t.Errorf("default Client().Timeout = %v, want %v", c.Timeout, DefaultClientTimeout)
	}
}

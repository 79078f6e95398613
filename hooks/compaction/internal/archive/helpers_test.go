package archive

import (
	"context"
	"crypto/sha256"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/notation"
)

// The test notation (internal/notation).
var (
	user   = notation.User
	result = notation.Result
)

// arcConv is a conversation key for tests, one per first message.
func arcConv(t *testing.T, first string) string {
	t.Helper()
	return conversation(sha256.Sum256([]byte("rules\x00" + first)))
}

func arcNew(t *testing.T, dir string, c Config) *File {
	t.Helper()
	a, err := c.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func arcPut(t *testing.T, a *File, conv string, msgs ...*schema.Message) string {
	t.Helper()
	ref, err := a.Put(context.Background(), conv, msgs)
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

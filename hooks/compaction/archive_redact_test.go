package compaction

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
)

// TestRedactArchiveKeepsSecretsOffDisk: through RedactArchive with
// RedactSecrets, a key and URL credentials in every text of a message
// (content, reasoning, text parts, tool-call arguments) never reach the
// archive's file, what Get returns is redacted, and the caller's messages
// are untouched; without it they are on disk, which is what the test
// guards against.
func TestRedactArchiveKeepsSecretsOffDisk(t *testing.T) {
	t.Parallel()
	const key = "sk-canary-7f3a9c1e5b2d4f6a8c0e"
	const pass = "hunter2secret"
	secretMessages := func() []*schema.Message {
		asst := call("c1")
		asst.ToolCalls[0].Function.Arguments = `{"token":"` + key + `"}`
		asst.ReasoningContent = "the key is " + key
		res := result("c1", "GET https://admin:"+pass+"@db.example/x?api_key="+pass+" -> 200")
		part := user("")
		part.UserInputMultiContent = []schema.MessageInputPart{{Type: schema.ChatMessagePartTypeText, Text: "use " + key}}
		part.Extra = map[string]any{"provider_raw": key}
		return []*schema.Message{asst, res, part}
	}
	for _, tc := range []struct {
		name   string
		redact func(string) string
		leaks  bool
	}{{"redacted", RedactSecrets, false}, {"verbatim", nil, true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			a, err := RedactArchive(arcNew(t, dir), tc.redact)
			if err != nil {
				t.Fatal(err)
			}
			in := secretMessages()
			conv := arcConv(t, "secrets")
			ref := arcPut(t, a, conv, in...)
			raw, err := os.ReadFile(filepath.Join(dir, conv+".arc"))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(string(raw), key) || strings.Contains(string(raw), pass); got != tc.leaks {
				t.Fatalf("secrets on disk: %v, want %v:\n%s", got, tc.leaks, raw)
			}
			if PrefixDigest(in) != PrefixDigest(secretMessages()) || in[2].Extra["provider_raw"] != key {
				t.Fatal("the caller's messages changed")
			}
			_, got, err := a.Get(context.Background(), ref)
			if err != nil || len(got) != len(in) {
				t.Fatalf("Get: %d messages, %v", len(got), err)
			}
			shown := Render(got, RenderOptions{ToolCallIDs: true})
			if strings.Contains(shown, key) != tc.leaks || strings.Contains(shown, pass) != tc.leaks {
				t.Fatalf("recalled text:\n%s", shown)
			}
			if !tc.leaks && (!strings.Contains(shown, "db.example/x") || !strings.Contains(got[0].ReasoningContent, "the key is xxxxx")) {
				t.Fatalf("redaction lost what is not secret:\n%s", shown)
			}
		})
	}
	if _, err := RedactArchive(nil, RedactSecrets); err == nil || !strings.Contains(err.Error(), "Archive") {
		t.Fatalf("nil archive: %v", err)
	}
}

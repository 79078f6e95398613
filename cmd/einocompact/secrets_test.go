package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSummarizerKeyInURLNeverPrinted: a canary key in the summarizer's base
// URL (as the user name, in the path, in the host) must not reach the report
// or stderr when the real client fails on that endpoint, and the failure must
// still be reported.
func TestSummarizerKeyInURLNeverPrinted(t *testing.T) {
	t.Parallel()
	const key = "sk-canary5e1d9b3f7a0c2e4d6b8a"
	for name, base := range map[string]string{
		"user name": "http://" + key + "@127.0.0.1:1/v1",
		"path":      "http://127.0.0.1:1/" + key + "/v1",
		"host":      "http://" + key + ".invalid/v1",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			env := func(k string) (string, bool) {
				if k == "SUMMARIZER_BASE_URL" {
					return base, true
				}
				return "", false
			}
			_, stdout, stderr := mtRun(t, env, "compact", "--in", filepath.Join("testdata", "coding.eino.json"), "--window", "3000",
				"--out", filepath.Join(t.TempDir(), "out.json"))
			if strings.Contains(stdout+stderr, key) {
				t.Errorf("the key was printed:\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
			}
			if !strings.Contains(stdout+stderr, "dial tcp") {
				t.Errorf("the summarizer's failure is not reported:\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
			}
		})
	}
}

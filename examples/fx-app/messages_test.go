package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeConfig writes a --config file and returns its path.
func writeConfig(t *testing.T, yaml string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// A live model whose base URL lacks /v1 (the server answers 404 page not
// found, as a local server does) stops the app with the hint to add it,
// said once; with model.warm_up the start fails the same way,
// and fx's own log does not repeat it.
func TestMisconfiguredEndpointSaysWhatToSet(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	env := map[string]string{"OPENAI_BASE_URL": srv.URL, "OPENAI_API_KEY": "sk-test"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	want := "set OPENAI_BASE_URL or model.base_url to " + srv.URL + "/v1: "
	tests := []struct {
		name, yaml, prefix string
	}{
		{"first model call", "", "fx-app: run: "},
		{"warm-up", "model:\n  warm_up: true\n", "fx-app: start: warm-up request to the agent's model (\"gpt-4o-mini\") failed: the base URL "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := []string{"--quiet"}
			if tc.yaml != "" {
				args = append(args, "--config", writeConfig(t, tc.yaml))
			}
			var stdout, stderr bytes.Buffer
			if code := run(context.Background(), args, &stdout, &stderr, lookup); code != 1 {
				t.Fatalf("exit %d, want 1; stderr:\n%s", code, stderr.String())
			}
			out := stderr.String()
			if !strings.HasPrefix(out, tc.prefix) || strings.Count(out, want) != 1 || strings.Count(out, "fx-app:") != 1 {
				t.Errorf("stderr:\n%s\nwant one message starting %q and saying %q once", out, tc.prefix, want)
			}
		})
	}
}

// strategy: pipeline prunes, then summarizes what pruning left. A summary
// that is not smaller than what it would replace is refused and planned
// around, which is no failure: the compaction is applied, nothing is logged
// at the default level (warn), and no compaction is reported as failed.
func TestPipelineReportsNoFailureForARefusedRound(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--config", writeConfig(t, "compaction:\n  strategy: pipeline\n")}, &stdout, &stderr, noEnv); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Errorf("stderr at the default level:\n%s", stderr.String())
	}
	if strings.Contains(stdout.String(), "(failed)") {
		t.Errorf("a compaction is reported as failed:\n%s", stdout.String())
	}
	if !strings.Contains(stdout.String(), "(not smaller, not used)") {
		t.Errorf("the refused round is not shown; the run no longer exercises it:\n%s", stdout.String())
	}
}

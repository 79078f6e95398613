package compactfx

import (
	"context"
	"strings"
	"testing"
)

func TestRedactURL(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"https://api.example.test/v1", "https://api.example.test/v1"},
		{"http://localhost:11434/v1", "http://localhost:11434/v1"},
		{"https://user:s3cret@api.example.test/v1", "https://xxxxx@api.example.test/v1"},
		{"https://s3cret@api.example.test/v1", "https://xxxxx@api.example.test/v1"},
		{"https://api.example.test/v1?api-key=s3cret", "https://api.example.test/v1?xxxxx"},
		{"https://sk-abc123def456ghi@api.example.test/v1", "https://xxxxx@api.example.test/v1"},
		{"https://api.example.test/sk-proj0123456789abcdef/v1", "https://api.example.test/xxxxx/v1"},
		{"https://api.example.test/keys/a1b2c3d4e5f6a7b8c9d0e1f2/v1", "https://api.example.test/keys/xxxxx/v1"},
		{"https://sk-proj0123456789abcdef.proxy.example.test:8443/v1", "https://xxxxx.proxy.example.test:8443/v1"},
		{"https://api.example.test/openai/deployments/gpt-4o-mini-2024-07-18/v1", "https://api.example.test/openai/deployments/gpt-4o-mini-2024-07-18/v1"},
		{"http://[::1:bad", "<unparsable URL>"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := RedactURL(tt.in); got != tt.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Endpoints reach reports, errors and logs only redacted.
func TestEndpointSecretsStayOutOfReports(t *testing.T) {
	t.Parallel()
	const secret = "s3cret"
	cfg := DefaultConfig()
	cfg.Model.BaseURL = "https://user:" + secret + "@api.example.test/v1?key=" + secret
	if name := SummarizerName(cfg); strings.Contains(name, secret) || !strings.Contains(name, "api.example.test") {
		t.Errorf("SummarizerName = %q", name)
	}
	cfg.Model.BaseURL = "ftp://user:" + secret + "@api.example.test/v1"
	if err := cfg.Validate(); err == nil || strings.Contains(err.Error(), secret) {
		t.Errorf("Validate = %v; want an error without the secret", err)
	}
	m := cfg.Model
	m.BaseURL = "https://user:" + secret + "@127.0.0.1:1/v1"
	m.WarmUp = true
	em, err := NewEndpointModel(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	if err := em.WarmUp(context.Background()); err == nil || strings.Contains(err.Error(), secret) {
		t.Errorf("WarmUp = %v; want an error without the secret", err)
	}
}

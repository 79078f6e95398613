package redact

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestURLs(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`Post "http://sk-k3y@127.0.0.1:1/v1/chat/completions": refused`, `Post "http://xxxxx@127.0.0.1:1/v1/chat/completions": refused`},
		{`Post "https://user:pw@host/v1": x`, `Post "https://xxxxx@host/v1": x`},
		{`GET https://host/v1?api-key=k3y&x=1 failed`, `GET https://host/v1?xxxxx failed`},
		{`Post "http://h/v1?key=k3y/chat/completions": x`, `Post "http://h/v1?xxxxx": x`},
		{`mail bob@example.com about http://host/v1`, `mail bob@example.com about http://host/v1`},
		{`no url here`, `no url here`},
	}
	for _, tc := range tests {
		if got := URLs(tc.in); got != tc.want {
			t.Errorf("URLs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestErrorKeepsIdentityNotText(t *testing.T) {
	t.Parallel()
	cause := fmt.Errorf(`Post "http://sk-k3y@h/v1": %w`, context.DeadlineExceeded)
	err := Error(cause, URLs)
	if err.Error() != `Post "http://xxxxx@h/v1": context deadline exceeded` {
		t.Errorf("message %q", err.Error())
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Error("errors.Is lost the deadline")
	}
	if errors.Unwrap(err) != nil {
		t.Error("the unmasked error can be unwrapped")
	}
	plain := errors.New("nothing to mask")
	if Error(plain, URLs) != plain || Error(nil, URLs) != nil {
		t.Error("an error with nothing to mask must come back as it was")
	}
}

func TestTextMasksURLCredentialsAndKeys(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`export OPENAI_API_KEY=sk-proj-abcdefghij123`, `export OPENAI_API_KEY=xxxxx`},
		{`token gsk_0123456789abcdef and hf_abcdefghijkl`, `token xxxxx and xxxxx`},
		{`see https://u:pw@host/x?sig=abc and sk-abcdefghijk`, `see https://xxxxx@host/x?xxxxx and xxxxx`},
		{`short sk-abc stays`, `short sk-abc stays`},
		{`task-runner-pool and risk-assessment-2024 stay`, `task-runner-pool and risk-assessment-2024 stay`},
		{`commit 3f9a1c2b4d5e6f708192a3b4c5d6e7f801234567 stays`, `commit 3f9a1c2b4d5e6f708192a3b4c5d6e7f801234567 stays`},
	}
	for _, tc := range tests {
		if got := Text(tc.in); got != tc.want {
			t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

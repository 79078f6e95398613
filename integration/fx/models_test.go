package compactfx

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/tiktoken"
	"github.com/einocompact/einocompact/openaitest"
	"github.com/einocompact/einocompact/summarizer/extractive"
)

func summaryPrompt() []*schema.Message {
	return []*schema.Message{
		schema.SystemMessage("Summarize."),
		schema.UserMessage("<conversation_to_summarize>\nuser: fix the flaky test in internal/retry/backoff_test.go\n" +
			strings.Repeat("assistant: looked at internal/retry/backoff.go and found the jitter bound\n", 10) +
			"</conversation_to_summarize>"),
	}
}

func TestNewSummarizer(t *testing.T) {
	t.Parallel()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	down := openaitest.Start(t, func(*openaitest.Request) (*openaitest.Reply, error) {
		return &openaitest.Reply{Status: 503, ErrorMessage: "overloaded"}, nil
	})
	up := openaitest.Start(t, func(*openaitest.Request) (*openaitest.Reply, error) { return openaitest.Text("the summary"), nil })
	tests := []struct {
		name         string
		mutate       func(*Config)
		srv          *openaitest.Server
		wantText     string // substring of the reply
		wantRequests int
	}{
		{"offline", func(*Config) {}, nil, "internal/retry/backoff", 0},
		{"endpoint answers", func(c *Config) { c.Summarizer.BaseURL = up.BaseURL() }, up, "the summary", 1},
		{"endpoint down: retries, then offline", func(c *Config) { c.Summarizer.BaseURL = down.BaseURL() }, down, "internal/retry/backoff", 3},
		{"endpoint down, no retries", func(c *Config) { c.Summarizer.BaseURL, c.Summarizer.Retries = down.BaseURL(), 0 }, down, "internal/retry/backoff", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Not parallel: the request counts of the shared servers.
			cfg := DefaultConfig()
			cfg.Summarizer.RetryBaseDelay = Duration(time.Millisecond)
			tt.mutate(cfg)
			if err := cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			before := 0
			if tt.srv != nil {
				before = len(tt.srv.Requests())
			}
			s, err := newSummarizer(context.Background(), cfg, quiet)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := s.(*extractive.Summarizer); ok != (tt.srv == nil) {
				t.Errorf("summarizer is %T", s)
			}
			reply, err := s.Generate(context.Background(), summaryPrompt())
			if err != nil {
				t.Fatalf("Generate: %v", err)
			}
			if !strings.Contains(reply.Content, tt.wantText) {
				t.Errorf("reply %q lacks %q", reply.Content, tt.wantText)
			}
			if tt.srv != nil {
				if got := len(tt.srv.Requests()) - before; got != tt.wantRequests {
					t.Errorf("endpoint saw %d requests, want %d (1 + summarizer.retries)", got, tt.wantRequests)
				}
			}
		})
	}
}

func TestNewCounterKinds(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig().Compaction.Counter
	cfg.Kind = CounterTiktoken
	c, err := newCounter(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.(*tiktoken.Counter); !ok {
		t.Errorf("kind tiktoken built %T", c)
	}
	cfg.Encoding = "cl100k_base"
	if _, err := newCounter(cfg); err != nil {
		t.Errorf("cl100k_base: %v", err)
	}
	cfg.Kind = "bpe"
	if _, err := newCounter(cfg); err == nil || !strings.Contains(err.Error(), `compaction.counter.kind = "bpe"`) {
		t.Errorf("unknown kind: %v", err)
	}
}

// TestZeroAttachmentChargeIsHonoured: a tokens_per_image or tokens_per_file
// written as 0 or -1 charges nothing, with either counter, while the same keys left
// out keep the defaults (85 and 1000).
func TestZeroAttachmentChargeIsHonoured(t *testing.T) {
	t.Parallel()
	img := schema.MessageInputPart{Type: schema.ChatMessagePartTypeImageURL,
		Image: &schema.MessageInputImage{MessagePartCommon: schema.MessagePartCommon{MIMEType: "image/png"}}}
	file := schema.MessageInputPart{Type: schema.ChatMessagePartTypeFileURL,
		File: &schema.MessageInputFile{MessagePartCommon: schema.MessagePartCommon{MIMEType: "application/pdf"}, Name: "a.pdf"}}
	imageOnly := []*schema.Message{{Role: schema.User, UserInputMultiContent: []schema.MessageInputPart{img}}}
	fileOnly := []*schema.Message{{Role: schema.User, UserInputMultiContent: []schema.MessageInputPart{file}}}
	count := func(t *testing.T, yaml string, msgs []*schema.Message) int {
		t.Helper()
		cfg, err := parse([]byte(yaml))
		if err != nil {
			t.Fatal(err)
		}
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		c, err := newCounter(cfg.Compaction.Counter)
		if err != nil {
			t.Fatal(err)
		}
		n, err := c.Count(context.Background(), msgs, nil)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, kind := range []string{CounterApproximate, CounterTiktoken} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			base := "compaction:\n  counter:\n    kind: " + kind + "\n"
			for _, tt := range []struct {
				key  string
				msgs []*schema.Message
				def  int
			}{
				{"tokens_per_image", imageOnly, 85},
				{"tokens_per_file", fileOnly, 1000},
			} {
				withDefault := count(t, base, tt.msgs)
				// 0 is the configuration's spelling of nothing; -1 the Go
				// counters' (compaction.NoCharge), accepted here too.
				for _, nothing := range []string{"0", "-1"} {
					zero := count(t, base+"    "+tt.key+": "+nothing+"\n", tt.msgs)
					if withDefault-zero != tt.def {
						t.Errorf("%s: %s charges %d tokens less than the default, want %d less (default count %d, count %d)",
							tt.key, nothing, withDefault-zero, tt.def, withDefault, zero)
					}
				}
			}
		})
	}
}

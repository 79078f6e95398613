package openaitest

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// TestProviderModes drives each provider-like mode through the eino-ext
// client and checks the reply, or the error the client returns, and what
// the server recorded.
func TestProviderModes(t *testing.T) {
	t.Parallel()
	const text = "0123456789abcdef0123456789abcdef" // 8 visible tokens
	cases := []struct {
		name      string
		opts      []Option
		key       string // the client's key; "" is the server's own
		call      []model.Option
		wantErr   []string // in the client's error; nil: success
		content   string
		finish    string
		reasoning int
		output    int // completion tokens reported
	}{
		{name: "reasoning refuses max_tokens", opts: []Option{WithReasoning(40)}, call: []model.Option{model.WithMaxTokens(100)},
			wantErr: []string{"400", "Unsupported parameter: 'max_tokens'", "max_completion_tokens"}},
		{name: "reasoning spends the whole cap", opts: []Option{WithReasoning(40)}, call: []model.Option{openai.WithMaxCompletionTokens(30)},
			content: "", finish: "length", reasoning: 30, output: 30},
		{name: "reasoning cuts the text", opts: []Option{WithReasoning(40)}, call: []model.Option{openai.WithMaxCompletionTokens(44)},
			content: text[:16], finish: "length", reasoning: 40, output: 44},
		{name: "reasoning with room", opts: []Option{WithReasoning(40)}, call: []model.Option{openai.WithMaxCompletionTokens(48)},
			content: text, finish: "stop", reasoning: 40, output: 48},
		{name: "reasoning without a cap", opts: []Option{WithReasoning(40)},
			content: text, finish: "stop", reasoning: 40, output: 48},
		{name: "within the context limit", opts: []Option{WithContextLimit(1000)}, content: text, finish: "stop"},
		{name: "over the context limit", opts: []Option{WithContextLimit(5)},
			wantErr: []string{"400", "maximum context length is 5 tokens"}},
		{name: "the required key", opts: []Option{WithAPIKey("sk-right")}, content: text, finish: "stop"},
		{name: "a wrong key", opts: []Option{WithAPIKey("sk-right")}, key: "sk-wrong",
			wantErr: []string{"401", "Incorrect API key provided."}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			srv := Start(t, Script(Text(text)), tc.opts...)
			key := tc.key
			if key == "" {
				key = srv.APIKey()
			}
			cm, err := openai.NewChatModel(ctx, &openai.ChatModelConfig{BaseURL: srv.BaseURL(), APIKey: key,
				Model: "m", HTTPClient: srv.Client()})
			if err != nil {
				t.Fatal(err)
			}
			got, err := cm.Generate(ctx, []*schema.Message{schema.UserMessage("summarize the document about the moon")}, tc.call...)
			if tc.wantErr != nil {
				if err == nil {
					t.Fatalf("no error; reply %q", got.Content)
				}
				for _, w := range tc.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q lacks %q", err, w)
					}
				}
				if strings.Contains(err.Error(), "sk-wrong") {
					t.Errorf("the error echoes the key: %v", err)
				}
				if rej := srv.Rejected(); len(rej) != 1 {
					t.Errorf("%d requests recorded as rejected, want 1", len(rej))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Content != tc.content || got.ResponseMeta.FinishReason != tc.finish {
				t.Errorf("reply %q finish %q; want %q %q", got.Content, got.ResponseMeta.FinishReason, tc.content, tc.finish)
			}
			u := got.ResponseMeta.Usage
			if tc.output > 0 && (u.CompletionTokens != tc.output || u.CompletionTokensDetails.ReasoningTokens != tc.reasoning) {
				t.Errorf("usage: %d completion tokens, %d reasoning; want %d, %d",
					u.CompletionTokens, u.CompletionTokensDetails.ReasoningTokens, tc.output, tc.reasoning)
			}
		})
	}
}

// TestProviderErrorBodies checks the error objects on the wire, which a
// client reads its error code from: code and param as the provider sends them.
func TestProviderErrorBodies(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		opts   []Option
		body   string
		auth   string
		status int
		code   string
		param  string
	}{
		{"max_tokens", []Option{WithReasoning(1)}, `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`, "Bearer k",
			http.StatusBadRequest, "unsupported_parameter", "max_tokens"},
		{"context", []Option{WithContextLimit(1)}, `{"model":"m","messages":[{"role":"user","content":"hello there"}]}`, "Bearer k",
			http.StatusBadRequest, "context_length_exceeded", "messages"},
		{"no key", []Option{WithAPIKey("k")}, `{"model":"m","messages":[]}`, "",
			http.StatusUnauthorized, "invalid_api_key", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := Start(t, Script(Text("x")), tc.opts...)
			req, err := http.NewRequest(http.MethodPost, srv.BaseURL()+"/chat/completions", strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var e apiError
			if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
				t.Fatal(err)
			}
			param := ""
			if e.Error.Param != nil {
				param = *e.Error.Param
			}
			if resp.StatusCode != tc.status || e.Error.Code == nil || *e.Error.Code != tc.code || param != tc.param ||
				e.Error.Type != "invalid_request_error" {
				t.Errorf("status %d, error %+v; want %d code %q param %q", resp.StatusCode, e.Error, tc.status, tc.code, tc.param)
			}
		})
	}
}

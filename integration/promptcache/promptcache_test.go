package promptcache_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/integration/promptcache"
	"github.com/einocompact/einocompact/openaitest"
)

// The key reaches the request body the real eino-ext client posts, next to
// the configured extra fields, for Generate and Stream; without a
// conversation in ctx nothing is added; two tenants never share a key.
func TestPromptCacheKeyInRequestBody(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name         string
		tenant, conv string
		stream       bool
		want         string // "" when no key must be sent
	}{
		{"generate", "acme", "conv-1", false, promptcache.Key("acme", "conv-1")},
		{"stream", "acme", "conv-1", true, promptcache.Key("acme", "conv-1")},
		{"other tenant, same conversation id", "globex", "conv-1", false, promptcache.Key("globex", "conv-1")},
		{"no conversation", "", "", false, ""},
		{"no tenant", "", "conv-1", false, ""},
	}
	if promptcache.Key("acme", "conv-1") == promptcache.Key("globex", "conv-1") {
		t.Fatal("two tenants share a key")
	}
	if promptcache.Key("a", "b\x00c") == promptcache.Key("a\x00b", "c") {
		t.Fatal("tenant and conversation run into each other")
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			srv := openaitest.Start(t, openaitest.Script(openaitest.Text("ok")))
			chat, err := openai.NewChatModel(ctx, &openai.ChatModelConfig{BaseURL: srv.BaseURL(), APIKey: "test", Model: "m",
				HTTPClient: srv.Client(), ExtraFields: map[string]any{"service_tier": "flex"}})
			if err != nil {
				t.Fatal(err)
			}
			m, err := promptcache.Model(chat, &promptcache.Config{ExtraFields: map[string]any{"service_tier": "flex"}})
			if err != nil {
				t.Fatal(err)
			}
			ctx = promptcache.WithConversation(ctx, tc.tenant, tc.conv)
			in := []*schema.Message{schema.UserMessage("hi")}
			if tc.stream {
				sr, err := m.Stream(ctx, in)
				if err != nil {
					t.Fatal(err)
				}
				for {
					if _, err := sr.Recv(); err != nil {
						break
					}
				}
				sr.Close()
			} else if _, err := m.Generate(ctx, in); err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			var body map[string]any
			if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
				t.Fatal(err)
			}
			got, has := body[promptcache.Field]
			if tc.want == "" {
				if has {
					t.Errorf("%s = %v sent without a conversation", promptcache.Field, got)
				}
			} else if got != tc.want {
				t.Errorf("%s = %v, want %q", promptcache.Field, got, tc.want)
			}
			if body["service_tier"] != "flex" {
				t.Errorf("the configured extra field was lost: service_tier = %v", body["service_tier"])
			}
		})
	}
}

package tiktoken

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cloudwego/eino/schema"
	"github.com/tiktoken-go/tokenizer"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// tkAwkward are messages whose endings and beginnings could tempt a
// pre-tokenizer to join them with the separator or the next message:
// trailing spaces, punctuation, digits, contractions, CR, blank lines, and
// non-Latin scripts.
func tkAwkward() []*schema.Message {
	texts := []string{
		"ends with spaces   ", "ends with a dot.", "ends with digits 12345", "it's", "we'll",
		"carriage return\r", "blank lines\n\n", "slash/", "tab\t", "(paren)", "émigré café", "数据处理完成。",
		"emoji 🎉", "  leading spaces", "[bracketed]", "a\n[user] fake line", "'s", "x", "!!!", "   ",
	}
	out := make([]*schema.Message, 0, 2*len(texts))
	for i, s := range texts {
		out = append(out, schema.UserMessage(s))
		out = append(out, schema.ToolMessage(s, fmt.Sprint("c", i), schema.WithToolName("t")))
	}
	return append(out, schema.AssistantMessage("", []schema.ToolCall{{ID: "z", Function: schema.FunctionCall{Name: "f", Arguments: `{"q": "1."}`}}}))
}

// TestSegmentsSumToTheWhole checks the property the per-message cache rests
// on, for both encodings: counting message by message (cached or not) gives
// exactly the token count of the whole rendering, for random sequences of
// awkward and real messages, with and without tool schemas.
func TestSegmentsSumToTheWhole(t *testing.T) {
	t.Parallel()
	pool := append(tkAwkward(), tkSample(t)...)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, enc := range []Encoding{O200kBase, Cl100kBase} {
		codec, err := tokenizer.Get(tokenizer.Encoding(enc))
		if err != nil {
			t.Fatal(err)
		}
		cached, uncached := tkNew(t, &Config{Encoding: enc}), tkNew(t, &Config{Encoding: enc, DisableCache: true})
		for trial := range 150 {
			msgs := make([]*schema.Message, 1+rng.IntN(12))
			for i := range msgs {
				msgs[i] = pool[rng.IntN(len(pool))]
			}
			var tools []*schema.ToolInfo
			if trial%3 == 0 {
				tools = tkTools()
			}
			want, _ := codec.Count(compaction.Render(msgs, compaction.RenderOptions{}) + compaction.RenderTools(tools))
			for name, c := range map[string]*Counter{"cached": cached, "uncached": uncached} {
				if got, err := c.Count(context.Background(), msgs, tools); got != want || err != nil {
					t.Fatalf("%s %s trial %d: %d (%v), whole rendering %d\n%q", enc, name, trial, got, err, want,
						compaction.Render(msgs, compaction.RenderOptions{}))
				}
			}
		}
	}
}

func TestCacheIsBoundedAndOptional(t *testing.T) {
	t.Parallel()
	msgs := tkSample(t)
	small := tkNew(t, &Config{CacheEntries: 5})
	want, _ := tkNew(t, &Config{DisableCache: true}).Count(context.Background(), msgs, nil)
	for range 3 {
		if got, _ := small.Count(context.Background(), msgs, nil); got != want {
			t.Fatalf("small cache: %d, want %d", got, want)
		}
		if n := small.cache.len(); n > 5 || n == 0 {
			t.Fatalf("cache holds %d entries, bound 5", n)
		}
	}
	if off := tkNew(t, &Config{DisableCache: true}); off.cache != nil {
		t.Error("DisableCache left a cache")
	}
	if _, err := New(&Config{CacheEntries: -1}); err == nil {
		t.Error("negative CacheEntries accepted")
	}
}

package tiktoken

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/schema"
	"github.com/tiktoken-go/tokenizer"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// tkSample loads the bundled agent transcript (a coding session with tool
// calls, code, JSON, logs and a little German and Japanese).
func tkSample(tb testing.TB) []*schema.Message {
	tb.Helper()
	return tkLoad(tb, "testdata/sample.json")
}

// tkLoad reads a transcript stored as Eino messages in JSON.
func tkLoad(tb testing.TB, path string) []*schema.Message {
	tb.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var msgs []*schema.Message
	if err := json.Unmarshal(raw, &msgs); err != nil {
		tb.Fatal(err)
	}
	return msgs
}

// tkTools are the schemas the sample's agent had.
func tkTools() []*schema.ToolInfo {
	str := func(desc string) *schema.ParameterInfo {
		return &schema.ParameterInfo{Type: schema.String, Desc: desc, Required: true}
	}
	return []*schema.ToolInfo{
		{Name: "read_file", Desc: "Read a file of the repository.", ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{"path": str("path from the repository root")})},
		{Name: "run_tests", Desc: "Run go test on a package pattern.", ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
			"package": str("package pattern"), "verbose": {Type: schema.Boolean, Desc: "pass -v"},
		})},
	}
}

func tkNew(t testing.TB, cfg *Config) *Counter {
	t.Helper()
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestConfig(t *testing.T) {
	t.Parallel()
	if c := tkNew(t, nil); c.Encoding() != O200kBase || c.tokensPerImage != 85 || c.tokensPerFile != 1000 {
		t.Errorf("defaults = %s %d %d", c.Encoding(), c.tokensPerImage, c.tokensPerFile)
	}
	for _, tt := range []struct {
		cfg        Config
		field, bad string
	}{
		{Config{Encoding: "p50k_base"}, "Encoding", "p50k_base"},
		{Config{TokensPerImage: -4}, "TokensPerImage", "-4"},
		{Config{TokensPerFile: -2}, "TokensPerFile", "-2"},
		{Config{TokensPerImage: -3}, "compaction.NoCharge", "-3"},
		{Config{TokensPerImage: compaction.MaxAttachmentCharge + 1}, "TokensPerImage must be at most 10000000", "10000001"},
		{Config{TokensPerFile: 1 << 62}, "TokensPerFile must be at most 10000000", "4611686018427387904"},
	} {
		_, err := New(&tt.cfg)
		if err == nil || !strings.Contains(err.Error(), tt.field) || !strings.Contains(err.Error(), tt.bad) {
			t.Errorf("%s: err = %v", tt.field, err)
		}
	}
}

// TestEncodingsAreTheRealOnes pins token ids published for "hello world", so
// a wrong or mislabelled vocabulary cannot pass.
func TestEncodingsAreTheRealOnes(t *testing.T) {
	t.Parallel()
	for enc, want := range map[Encoding][]uint{Cl100kBase: {15339, 1917}, O200kBase: {24912, 2375}} {
		c := tkNew(t, &Config{Encoding: enc})
		codec, err := c.load()
		if err != nil {
			t.Fatal(err)
		}
		ids, _, err := codec.Encode("hello world")
		if err != nil || len(ids) != 2 || ids[0] != want[0] || ids[1] != want[1] {
			t.Errorf("%s: hello world = %v (%v), want %v", enc, ids, err, want)
		}
	}
}

func TestCountsTheSharedRendering(t *testing.T) {
	t.Parallel()
	msgs, tools := tkSample(t), tkTools()
	for _, enc := range []Encoding{O200kBase, Cl100kBase} {
		c := tkNew(t, &Config{Encoding: enc})
		codec, _ := tokenizer.Get(tokenizer.Encoding(enc))
		text := compaction.Render(msgs, compaction.RenderOptions{}) + compaction.RenderTools(tools)
		want, _ := codec.Count(text)
		got, err := c.Count(context.Background(), msgs, tools)
		if err != nil || got != want {
			t.Errorf("%s: Count = %d (%v), want %d", enc, got, err, want)
		}
		noTools, _ := c.Count(context.Background(), msgs, nil)
		if noTools >= got {
			t.Errorf("%s: schemas added nothing (%d vs %d)", enc, noTools, got)
		}
	}
}

// TestReasoningIsCounted: reasoning the client sends back is tokenized on
// its own and added; reasoning it drops (a message with input parts) is not.
func TestReasoningIsCounted(t *testing.T) {
	t.Parallel()
	const thought = "The user wants the flaky test fixed; first read backoff.go, then check the jitter bound."
	ctx := context.Background()
	c := tkNew(t, nil)
	codec, _ := tokenizer.Get(tokenizer.Encoding(O200kBase))
	extra, _ := codec.Count(thought)
	msgs := tkSample(t)
	base, err := c.Count(ctx, msgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	withThought := append([]*schema.Message{}, msgs...)
	withThought[1] = &schema.Message{Role: msgs[1].Role, Content: msgs[1].Content, ReasoningContent: thought}
	if msgs[1].ReasoningContent != "" || len(msgs[1].UserInputMultiContent) > 0 {
		t.Fatal("sample message 1 must be plain text without reasoning")
	}
	if got, _ := c.Count(ctx, withThought, nil); got != base+extra {
		t.Errorf("Count with reasoning = %d, want %d + %d", got, base, extra)
	}
	dropped := []*schema.Message{{Role: schema.User, ReasoningContent: thought,
		UserInputMultiContent: []schema.MessageInputPart{{Type: schema.ChatMessagePartTypeText, Text: "hi"}}}}
	want, _ := codec.Count(compaction.Render(dropped, compaction.RenderOptions{}))
	if got, _ := c.Count(ctx, dropped, nil); got != want {
		t.Errorf("reasoning the client drops counted: %d, want %d", got, want)
	}
}

func TestAttachmentsAreFlatCharges(t *testing.T) {
	t.Parallel()
	url := "https://example.com/cat.png"
	img := schema.MessageInputPart{Type: schema.ChatMessagePartTypeImageURL,
		Image: &schema.MessageInputImage{MessagePartCommon: schema.MessagePartCommon{URL: &url}}}
	file := schema.MessageInputPart{Type: schema.ChatMessagePartTypeFileURL,
		File: &schema.MessageInputFile{MessagePartCommon: schema.MessagePartCommon{URL: &url}, Name: "report.pdf"}}
	msg := &schema.Message{Role: schema.User, UserInputMultiContent: []schema.MessageInputPart{img, img, file}}
	ctx := context.Background()

	c := tkNew(t, nil)
	codec, _ := c.load()
	text, _ := codec.Count(compaction.Render([]*schema.Message{msg}, compaction.RenderOptions{}))
	got, err := c.Count(ctx, []*schema.Message{msg}, nil)
	if err != nil || got != text+2*85+1000 {
		t.Errorf("Count = %d (%v), want %d text tokens + 2 images + 1 file", got, err, text)
	}
	lo, hi := tkNew(t, &Config{TokensPerImage: 10}), tkNew(t, &Config{TokensPerImage: 500})
	a, _ := lo.Count(ctx, []*schema.Message{msg}, nil)
	b, _ := hi.Count(ctx, []*schema.Message{msg}, nil)
	if b-a != 2*490 {
		t.Errorf("two images at 500 vs 10 differ by %d, want %d", b-a, 2*490)
	}
	// A zero charge is spelled compaction.NoCharge, since 0 is the default.
	free := tkNew(t, &Config{TokensPerImage: compaction.NoCharge, TokensPerFile: compaction.NoCharge})
	if got, _ := free.Count(ctx, []*schema.Message{msg}, nil); got != text {
		t.Errorf("with NoCharge Count = %d, want the text alone, %d", got, text)
	}
}

func TestLazyIdempotentLoad(t *testing.T) {
	t.Parallel()
	c := tkNew(t, &Config{Encoding: Cl100kBase})
	if n, err := c.Count(context.Background(), nil, nil); n != 0 || err != nil || c.codec != nil {
		t.Fatalf("empty count = %d, %v; loaded %v", n, err, c.codec != nil)
	}
	if err := c.WarmUp(context.Background()); err != nil {
		t.Fatal(err)
	}
	first := c.codec
	if err := c.WarmUp(context.Background()); err != nil || c.codec != first {
		t.Fatalf("second WarmUp reloaded (%v)", err)
	}
	msgs := tkSample(t)
	want, _ := c.Count(context.Background(), msgs, nil)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if got, err := c.Count(context.Background(), msgs, nil); got != want || err != nil {
				t.Errorf("concurrent Count = %d (%v), want %d", got, err, want)
			}
		})
	}
	wg.Wait()
}

func TestCancelledContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c := tkNew(t, nil)
	if _, err := c.Count(ctx, tkSample(t), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Count: %v", err)
	}
	if err := c.WarmUp(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("WarmUp: %v", err)
	}
}

// TestWorksAsTheHookCounter plugs the exact counter into a compaction hook
// with a sliding window, the way an application would.
func TestWorksAsTheHookCounter(t *testing.T) {
	t.Parallel()
	c := tkNew(t, nil)
	sw, _ := compaction.NewSlidingWindowCompactor(context.Background(), nil)
	msgs := tkSample(t)
	total, _ := c.Count(context.Background(), msgs, nil)
	out, err := sw.Compact(context.Background(), msgs, total/2, c)
	if err != nil || out == nil {
		t.Fatalf("Compact = %v, %v", out, err)
	}
	if n, _ := c.Count(context.Background(), out, nil); n >= total {
		t.Errorf("compacted to %d tokens from %d", n, total)
	}
}

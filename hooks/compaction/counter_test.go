package compaction

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/render"
)

func userParts(parts ...schema.MessageInputPart) *schema.Message {
	return &schema.Message{Role: schema.User, UserInputMultiContent: parts}
}

// TestApproximateCounter ports §C.6. Expected values are arithmetic on the
// rendered lengths written next to them.
func TestApproximateCounter(t *testing.T) {
	t.Parallel()
	img := imagePart("image/png", nil)
	file := filePart("report.pdf", "application/pdf", nil)
	searchTool := &schema.ToolInfo{Name: "search", Desc: "Search the web.", ParamsOneOf: schema.NewParamsOneOfByParams(
		map[string]*schema.ParameterInfo{"query": {Type: schema.String, Required: true}})}
	toolsLen := render.RuneLen(RenderTools([]*schema.ToolInfo{searchTool}))
	tests := []struct {
		name  string
		cfg   *ApproximateConfig
		msgs  []*schema.Message
		tools []*schema.ToolInfo
		want  int
	}{
		{"empty", nil, nil, nil, 0},
		{"400 x", nil, []*schema.Message{user(rep("x", 400))}, nil, 407 / 4},
		{"ratio 2", &ApproximateConfig{CharsPerToken: 2}, []*schema.Message{user(rep("x", 400))}, nil, 407 / 2},
		{"image", nil, []*schema.Message{userParts(img)}, nil, len("[user] <image>")/4 + 85},
		{"file", nil, []*schema.Message{userParts(file)}, nil, len("[user] <file: report.pdf>")/4 + 1000},
		{"two images and a file", nil, []*schema.Message{userParts(img, img, file)}, nil, (14+1+14+1+25)/4 + 2*85 + 1000},
		{"image inside a tool result", nil, []*schema.Message{{Role: schema.Tool, ToolName: "search", UserInputMultiContent: []schema.MessageInputPart{textPart("shot:"), img}}}, nil, len("[tool:search] shot:<image>")/4 + 85},
		{"custom image price", &ApproximateConfig{TokensPerImage: 500}, []*schema.Message{userParts(img)}, nil, 3 + 500},
		{"images free with NoCharge", &ApproximateConfig{TokensPerImage: NoCharge}, []*schema.Message{userParts(img, file)}, nil, (14+1+25)/4 + 1000},
		{"files free with NoCharge", &ApproximateConfig{TokensPerFile: NoCharge}, []*schema.Message{userParts(img, file)}, nil, (14+1+25)/4 + 85},
		{"short text is not zero", nil, []*schema.Message{user("hi")}, nil, 2},
		{"schemas add tokens", nil, []*schema.Message{user("hi")}, []*schema.ToolInfo{searchTool}, (9 + toolsLen) / 4},
		{"tools alone", nil, nil, []*schema.ToolInfo{searchTool}, toolsLen / 4},
		{"code points not bytes", nil, []*schema.Message{user(rep("é", 400))}, nil, 407 / 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := NewApproximateTokenCounter(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Count(context.Background(), tc.msgs, tc.tools)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("Count = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestApproximateConfigValidation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cfg  ApproximateConfig
		want string
	}{
		{ApproximateConfig{CharsPerToken: -1}, "CharsPerToken must be 0 (the default, 4) or in [0.1, 100], got -1"},
		{ApproximateConfig{CharsPerToken: 1e-300}, "CharsPerToken must be 0 (the default, 4) or in [0.1, 100], got 1e-300"},
		{ApproximateConfig{CharsPerToken: 1e300}, "CharsPerToken must be 0 (the default, 4) or in [0.1, 100], got 1e+300"},
		{ApproximateConfig{CharsPerToken: math.NaN()}, "CharsPerToken must be 0 (the default, 4) or in [0.1, 100], got NaN"},
		{ApproximateConfig{TokensPerImage: 1 << 62}, "TokensPerImage must be at most 10000000 (MaxAttachmentCharge), got 4611686018427387904"},
		{ApproximateConfig{TokensPerFile: math.MaxInt}, "TokensPerFile must be at most 10000000 (MaxAttachmentCharge), got 9223372036854775807"},
		{ApproximateConfig{TokensPerImage: -5}, "TokensPerImage must be at least 0 (or NoCharge), got -5"},
		{ApproximateConfig{TokensPerFile: -2}, "TokensPerFile must be at least 0 (or NoCharge), got -2"},
	}
	for _, tc := range tests {
		_, err := NewApproximateTokenCounter(&tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.cfg, err, tc.want)
		}
	}
	c, err := NewApproximateTokenCounter(&ApproximateConfig{})
	if err != nil || c.approx().CharsPerToken() != 4 {
		t.Errorf("zero config should take defaults: %v %v", c, err)
	}
	edges := ApproximateConfig{CharsPerToken: MinCharsPerToken, TokensPerImage: MaxAttachmentCharge, TokensPerFile: MaxAttachmentCharge}
	if _, err := NewApproximateTokenCounter(&edges); err != nil {
		t.Errorf("the bounds themselves must be accepted: %v", err)
	}
	if _, err := NewApproximateTokenCounter(&ApproximateConfig{CharsPerToken: MaxCharsPerToken}); err != nil {
		t.Errorf("MaxCharsPerToken must be accepted: %v", err)
	}
}

// TestCostCacheConfig: the cache's bound is validated with the other
// settings; the cache itself is tested in internal/count.
func TestCostCacheConfig(t *testing.T) {
	t.Parallel()
	if _, err := NewApproximateTokenCounter(&ApproximateConfig{CacheEntries: -1}); err == nil {
		t.Error("CacheEntries -1 accepted")
	}
}

func TestCounterDoesNotMutate(t *testing.T) {
	t.Parallel()
	msgs := append(fresh(), userParts(textPart("x"), imagePart("image/png", map[string]any{"k": 1})))
	before := cloneAll(msgs)
	tools := []*schema.ToolInfo{fetchTool()}
	if _, err := DefaultCounter().Count(context.Background(), msgs, tools); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(msgs, before) {
		t.Fatal("Count mutated its input")
	}
	if !reflect.DeepEqual(tools, []*schema.ToolInfo{fetchTool()}) {
		t.Fatal("Count mutated the tools")
	}
}

func TestZeroValueCounterUsesDefaults(t *testing.T) {
	t.Parallel()
	msgs := []*schema.Message{user(rep("x", 400)), userParts(imagePart("image/png", nil))}
	want, _ := DefaultCounter().Count(context.Background(), msgs, []*schema.ToolInfo{fetchTool()})
	for name, c := range map[string]*ApproximateTokenCounter{"zero": {}, "nil": nil} {
		got, err := c.Count(context.Background(), msgs, []*schema.ToolInfo{fetchTool()})
		if err != nil || got != want {
			t.Errorf("%s counter: %d, %v; want %d", name, got, err, want)
		}
		if c.approx().CharsPerToken() != 4 || c.Tokens(c.MessageCost(msgs[0]), 1) != 407/4 {
			t.Errorf("%s counter: ratio %v", name, c.approx().CharsPerToken())
		}
	}
}

package compaction

import (
	"context"
	"log/slog"
	"reflect"
	"testing"

	"github.com/cloudwego/eino/components/model"

	"github.com/einocompact/einocompact/hooks/compaction/identifiers"
)

// otherChat is a summarizer of another Go type than scModel.
type otherChat struct{ *scModel }

// TestSummarizationIdentityCoversEveryField (issue 30 item 7): every field of
// SummarizationConfig and LedgerConfig either changes the compactor's
// identity when set to another valid value, or is exempt with a reason. A
// field added to either struct fails the test until it is one or the other,
// so replicas with different settings never share a summary.
func TestSummarizationIdentityCoversEveryField(t *testing.T) {
	t.Parallel()
	intp := func(n int) *int { return &n }
	// Each variant sets its field to a valid value other than the base's.
	variants := map[string]func(c *SummarizationConfig){
		"ChatModel":                func(c *SummarizationConfig) { c.ChatModel = otherChat{scFixed(t, "x")} },
		"MinKeepSteps":             func(c *SummarizationConfig) { c.MinKeepSteps = intp(3) },
		"ApproximateSummaryTokens": func(c *SummarizationConfig) { c.ApproximateSummaryTokens = intp(77) },
		"SummaryInstruction":       func(c *SummarizationConfig) { c.SummaryInstruction = "Summarize tersely." },
		"RaiseOnFailure":           func(c *SummarizationConfig) { c.RaiseOnFailure = true },
		"MaxSummarizerInputTokens": func(c *SummarizationConfig) { c.MaxSummarizerInputTokens = 9000 },
		"MaxTextTokens":            func(c *SummarizationConfig) { c.MaxTextTokens = intp(100) },
		"CacheAligned":             func(c *SummarizationConfig) { c.CacheAligned = true },
		"MaxOutputTokens":          func(c *SummarizationConfig) { c.MaxOutputTokens = 300 },
		"MaxRoundInputTokens":      func(c *SummarizationConfig) { c.MaxRoundInputTokens = intp(9000) },
		"MaxRoundOutputTokens":     func(c *SummarizationConfig) { c.MaxRoundOutputTokens = intp(300) },
		"MaxCompletionTokensOption": func(c *SummarizationConfig) {
			c.MaxCompletionTokensOption = func(int) model.Option { return model.Option{} }
		},
		"Ledger.Disabled": func(c *SummarizationConfig) { c.Ledger = &LedgerConfig{Disabled: true} },
		"Ledger.Extractors": func(c *SummarizationConfig) {
			c.Ledger = &LedgerConfig{Extractors: identifiers.DefaultExtractors()[:1]}
		},
		"Ledger.MaxTokens":     func(c *SummarizationConfig) { c.Ledger = &LedgerConfig{MaxTokens: 500} },
		"Ledger.MaxRemembered": func(c *SummarizationConfig) { c.Ledger = &LedgerConfig{MaxRemembered: 20} },
	}
	exempt := map[string]string{
		"Logger":  "where warnings go; the summary is the same",
		"OnRound": "an observer called after each round; it cannot change the round's result",
		"Ledger":  "a struct; each of its fields is enumerated as Ledger.<name>",
	}
	base := func() *SummarizationConfig { return &SummarizationConfig{ChatModel: scFixed(t, "x")} }
	identity := func(cfg *SummarizationConfig) string {
		c, err := NewSummarizationCompactor(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return c.CompactionIdentity()
	}
	want := identity(base())
	checkIdentityFields(t, "SummarizationConfig", fieldNames(reflect.TypeFor[SummarizationConfig](), reflect.TypeFor[LedgerConfig]()),
		variants, exempt, base, identity)
	// The exempt fields really leave the identity alone.
	cfg := base()
	cfg.Logger, cfg.OnRound = slog.New(slog.DiscardHandler), func(context.Context, Round) {}
	if identity(cfg) != want {
		t.Error("Logger or OnRound changed the identity")
	}
}

// TestModelFreeIdentitiesCoverEveryField: the same rule for the sliding
// window's and the pruner's settings.
func TestModelFreeIdentitiesCoverEveryField(t *testing.T) {
	t.Parallel()
	intp := func(n int) *int { return &n }
	note := "[older turns dropped]"
	checkIdentityFields(t, "SlidingWindowConfig", fieldNames(reflect.TypeFor[SlidingWindowConfig](), nil),
		map[string]func(*SlidingWindowConfig){
			"MinKeepSteps": func(c *SlidingWindowConfig) { c.MinKeepSteps = intp(4) },
			"OmissionNote": func(c *SlidingWindowConfig) { c.OmissionNote = &note },
		}, nil,
		func() *SlidingWindowConfig { return &SlidingWindowConfig{} },
		func(cfg *SlidingWindowConfig) string {
			c, err := NewSlidingWindowCompactor(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			return c.CompactionIdentity()
		})
	checkIdentityFields(t, "ToolResultPruningConfig", fieldNames(reflect.TypeFor[ToolResultPruningConfig](), nil),
		map[string]func(*ToolResultPruningConfig){
			"MinKeepSteps": func(c *ToolResultPruningConfig) { c.MinKeepSteps = intp(4) },
			"MinTokens":    func(c *ToolResultPruningConfig) { c.MinTokens = intp(9) },
			"Placeholder":  func(c *ToolResultPruningConfig) { c.Placeholder = "[gone: {tool_name}]" },
			"SkipMetaKeys": func(c *ToolResultPruningConfig) { c.SkipMetaKeys = []string{"pinned"} },
		}, nil,
		func() *ToolResultPruningConfig { return &ToolResultPruningConfig{} },
		func(cfg *ToolResultPruningConfig) string {
			c, err := NewToolResultPruningCompactor(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			return c.CompactionIdentity()
		})
}

// fieldNames lists the fields of typ, then those of nested (a struct one
// of typ's fields holds, named Ledger here), as "Ledger.<name>".
func fieldNames(typ, nested reflect.Type) []string {
	var out []string
	for f := range typ.Fields() {
		out = append(out, f.Name)
	}
	if nested != nil {
		for f := range nested.Fields() {
			out = append(out, "Ledger."+f.Name)
		}
	}
	return out
}

// checkIdentityFields fails for each field that is neither exempt nor
// changes identity when its variant is applied to base().
func checkIdentityFields[C any](t *testing.T, typ string, fields []string, variants map[string]func(*C), exempt map[string]string,
	base func() *C, identity func(*C) string) {
	t.Helper()
	want := identity(base())
	for _, name := range fields {
		reason, isExempt := exempt[name]
		set, isVariant := variants[name]
		switch {
		case isExempt && isVariant:
			t.Errorf("%s.%s is both exempt (%s) and in the identity's variants", typ, name, reason)
			continue
		case isExempt:
			continue
		case !isVariant:
			t.Errorf("%s.%s is neither in CompactionIdentity's test variants nor exempt with a reason", typ, name)
			continue
		}
		cfg := base()
		set(cfg)
		if identity(cfg) == want {
			t.Errorf("setting %s.%s leaves the identity unchanged: replicas that differ in it would share results", typ, name)
		}
	}
}

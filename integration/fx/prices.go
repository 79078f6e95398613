package compactfx

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// PricesConfig is compaction.prices: the agent's model's token prices
// relative to an uncached input token (compaction.HookConfig.Prices),
// written as a preset name ("openai", "anthropic", "no_cache") or as the
// three numbers:
//
//	prices: openai
//	prices: {cached_input: 0.1, cache_write: 1.25, output: 5}
//
// Left out (a nil *PricesConfig), the hook chooses how deep a compaction
// goes under compaction.PricesOpenAI and applies every compaction that
// shrinks the conversation (compaction.HookConfig.Prices).
type PricesConfig struct {
	// Preset is the preset name, "" when the numbers were written.
	Preset string `yaml:"-"`
	// CachedInput, CacheWrite and Output are the numbers (see
	// compaction.Prices); a preset fills them in.
	CachedInput float64 `yaml:"cached_input"`
	CacheWrite  float64 `yaml:"cache_write"`
	Output      float64 `yaml:"output"`
}

// UnmarshalYAML implements yaml.Unmarshaler: a scalar is a preset name, a
// mapping the three numbers.
func (p *PricesConfig) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		pr, ok := compaction.PricesPreset(n.Value)
		if !ok {
			return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %q is not a price preset (openai, anthropic, no_cache) nor the three prices {cached_input, cache_write, output}", n.Line, n.Value)}}
		}
		*p = PricesConfig{Preset: n.Value, CachedInput: pr.CachedInput, CacheWrite: pr.CacheWrite, Output: pr.Output}
		return nil
	}
	if n.Kind == yaml.MappingNode {
		for i := 0; i < len(n.Content); i += 2 {
			switch k := n.Content[i]; k.Value {
			case "cached_input", "cache_write", "output":
			default:
				return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: compaction.prices has no field %q (cached_input, cache_write, output)", k.Line, k.Value)}}
			}
		}
	}
	type plain PricesConfig
	var v plain
	if err := n.Decode(&v); err != nil {
		return err
	}
	*p = PricesConfig(v)
	return nil
}

// MarshalYAML implements yaml.Marshaler so a Config round-trips: the preset
// name when one was written, else the numbers.
func (p PricesConfig) MarshalYAML() (any, error) {
	if p.Preset != "" {
		return p.Preset, nil
	}
	type plain PricesConfig
	return plain(p), nil
}

// prices is the hook's Prices: nil when the key was left out.
func (p *PricesConfig) prices() *compaction.Prices {
	if p == nil {
		return nil
	}
	return &compaction.Prices{CachedInput: p.CachedInput, CacheWrite: p.CacheWrite, Output: p.Output}
}

func (p *PricesConfig) validate(v *validator) {
	if pr := p.prices(); pr != nil {
		if err := pr.Validate(); err != nil {
			v.add("compaction.prices", fmt.Sprintf("{cached_input: %v, cache_write: %v, output: %v}", p.CachedInput, p.CacheWrite, p.Output), "%v", err)
		}
	}
}

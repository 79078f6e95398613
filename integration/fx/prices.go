package compactfx

import (
	"fmt"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// PricesConfig is compaction.prices: the agent's model's token prices
// relative to an uncached input token (compaction.HookConfig.Prices),
// written as a preset name ("openai", "anthropic", "no_cache"), as the
// three numbers and the cache's lifetime (compaction.Prices.CacheTTL; left
// out: no expiry modelled), or as a preset with another lifetime:
//
//	prices: openai
//	prices: {cached_input: 0.1, cache_write: 1.25, output: 5, cache_ttl: 5m}
//	prices: {preset: anthropic, cache_ttl: 1h}
//
// Left out (a nil *PricesConfig), the hook chooses how deep a compaction
// goes under compaction.PricesOpenAI and applies every compaction that
// shrinks the conversation (compaction.HookConfig.Prices).
type PricesConfig struct {
	// Preset is the preset name, "" when the numbers were written.
	Preset string `yaml:"-"`
	// overridden says cache_ttl beside Preset changed the preset's
	// lifetime.
	overridden bool
	// CachedInput, CacheWrite and Output are the numbers (see
	// compaction.Prices); a preset fills them in.
	CachedInput float64 `yaml:"cached_input"`
	CacheWrite  float64 `yaml:"cache_write"`
	Output      float64 `yaml:"output"`
	// CacheTTL is how long the provider keeps a prompt cache (see
	// compaction.Prices.CacheTTL), a duration such as 5m; a preset fills
	// it in, and cache_ttl beside preset replaces it.
	CacheTTL Duration `yaml:"cache_ttl,omitempty"`
}

// pricesFields are the keys of the mapping form, for the error naming an
// unknown one.
const pricesFields = "preset, cached_input, cache_write, output, cache_ttl"

// UnmarshalYAML implements yaml.Unmarshaler: a scalar is a preset name, a
// mapping the three numbers.
func (p *PricesConfig) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		pr, ok := compaction.PricesPreset(n.Value)
		if !ok {
			return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %q is not a price preset (openai, anthropic, no_cache) nor the three prices {cached_input, cache_write, output}", n.Line, n.Value)}}
		}
		*p = PricesConfig{Preset: n.Value, CachedInput: pr.CachedInput, CacheWrite: pr.CacheWrite, Output: pr.Output, CacheTTL: Duration(pr.CacheTTL)}
		return nil
	}
	var preset *yaml.Node
	if n.Kind == yaml.MappingNode {
		for i := 0; i < len(n.Content); i += 2 {
			switch k := n.Content[i]; k.Value {
			case "cached_input", "cache_write", "output", "cache_ttl":
			case "preset":
				preset = n.Content[i+1]
			default:
				return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: compaction.prices has no field %q (%s)", k.Line, k.Value, pricesFields)}}
			}
		}
	}
	if preset != nil {
		return p.presetWith(n, preset)
	}
	type plain PricesConfig
	var v plain
	if err := n.Decode(&v); err != nil {
		return err
	}
	*p = PricesConfig(v)
	return nil
}

// presetWith decodes the mapping n naming a preset: the preset's prices,
// with cache_ttl (the only other key allowed) replacing its lifetime.
func (p *PricesConfig) presetWith(n, preset *yaml.Node) error {
	pr, ok := compaction.PricesPreset(preset.Value)
	if !ok {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %q is not a price preset (openai, anthropic, no_cache)", preset.Line, preset.Value)}}
	}
	var v struct {
		Preset   string    `yaml:"preset"`
		CacheTTL *Duration `yaml:"cache_ttl"`
	}
	for i := 0; i < len(n.Content); i += 2 {
		if k := n.Content[i]; k.Value != "preset" && k.Value != "cache_ttl" {
			return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: compaction.prices names a preset, so %q cannot be set beside it (only cache_ttl)", k.Line, k.Value)}}
		}
	}
	if err := n.Decode(&v); err != nil {
		return err
	}
	*p = PricesConfig{Preset: v.Preset, CachedInput: pr.CachedInput, CacheWrite: pr.CacheWrite, Output: pr.Output, CacheTTL: Duration(pr.CacheTTL)}
	if v.CacheTTL != nil {
		p.CacheTTL = *v.CacheTTL
		if time.Duration(*v.CacheTTL) != pr.CacheTTL {
			// Written back as the mapping, so the lifetime round-trips.
			p.overridden = true
		}
	}
	return nil
}

// MarshalYAML implements yaml.Marshaler so a Config round-trips: the preset
// name when one was written, else the numbers.
func (p PricesConfig) MarshalYAML() (any, error) {
	if p.Preset != "" && !p.overridden {
		return p.Preset, nil
	}
	if p.Preset != "" {
		return map[string]any{"preset": p.Preset, "cache_ttl": p.CacheTTL}, nil
	}
	type plain PricesConfig
	return plain(p), nil
}

// prices is the hook's Prices: nil when the key was left out.
func (p *PricesConfig) prices() *compaction.Prices {
	if p == nil {
		return nil
	}
	return &compaction.Prices{CachedInput: p.CachedInput, CacheWrite: p.CacheWrite, Output: p.Output, CacheTTL: p.CacheTTL.Std()}
}

func (p *PricesConfig) validate(v *validator) {
	if pr := p.prices(); pr != nil {
		if err := pr.Validate(); err != nil {
			v.add("compaction.prices", fmt.Sprintf("{cached_input: %v, cache_write: %v, output: %v, cache_ttl: %v}", p.CachedInput, p.CacheWrite, p.Output, p.CacheTTL), "%v", err)
		}
	}
}

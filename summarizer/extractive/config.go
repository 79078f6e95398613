package extractive

import (
	"fmt"

	"github.com/einocompact/einocompact/hooks/compaction/identifiers"
)

// Config tunes the summarizer. Zero values mean the defaults; negative values
// are errors.
type Config struct {
	// MaxObjective caps the bullets under "## Objective": the first user
	// request and the latest ones. Default 3.
	MaxObjective int
	// MaxDecisions caps "## Decisions and constraints"; the latest are kept.
	// Default 8.
	MaxDecisions int
	// MaxWork caps "## Work completed"; the latest are kept. Default 20.
	MaxWork int
	// MaxIdentifiers caps "## Identifiers": tool-call ids (found only by
	// extractors that look for them; the defaults do not) go first, then the
	// oldest. Default 40.
	MaxIdentifiers int
	// MaxUnresolved caps "## Unresolved"; the latest are kept. Default 2.
	MaxUnresolved int
	// MaxLineRunes caps a bullet's length in code points; longer text is cut
	// and ends in "…", except identifiers, which are dropped rather than cut
	// since a cut identifier is a wrong one. Default 160, at least 16.
	MaxLineRunes int
	// MaxArgsRunes caps the arguments shown in a tool call bullet. Default 60,
	// at least 8.
	MaxArgsRunes int
	// Extractors find the identifiers. Nil means
	// identifiers.DefaultExtractors(); an empty non-nil slice turns the
	// section's extraction off (earlier summaries' identifiers are still kept).
	Extractors []identifiers.Extractor
}

// Defaults of Config.
const (
	DefaultMaxObjective   = 3
	DefaultMaxDecisions   = 8
	DefaultMaxWork        = 20
	DefaultMaxIdentifiers = 40
	DefaultMaxUnresolved  = 2
	DefaultMaxLineRunes   = 160
	DefaultMaxArgsRunes   = 60

	minLineRunes = 16
	minArgsRunes = 8
)

// resolve validates cfg and returns a copy with defaults filled in.
func (cfg *Config) resolve() (Config, error) {
	var c Config
	if cfg != nil {
		c = *cfg
	}
	ints := []struct {
		name string
		v    *int
		def  int
		min  int
	}{
		{"MaxObjective", &c.MaxObjective, DefaultMaxObjective, 1},
		{"MaxDecisions", &c.MaxDecisions, DefaultMaxDecisions, 1},
		{"MaxWork", &c.MaxWork, DefaultMaxWork, 1},
		{"MaxIdentifiers", &c.MaxIdentifiers, DefaultMaxIdentifiers, 1},
		{"MaxUnresolved", &c.MaxUnresolved, DefaultMaxUnresolved, 1},
		{"MaxLineRunes", &c.MaxLineRunes, DefaultMaxLineRunes, minLineRunes},
		{"MaxArgsRunes", &c.MaxArgsRunes, DefaultMaxArgsRunes, minArgsRunes},
	}
	for _, f := range ints {
		if *f.v == 0 {
			*f.v = f.def
		}
		if *f.v < f.min {
			return Config{}, fmt.Errorf("extractive: Config.%s must be 0 (default %d) or at least %d, got %d", f.name, f.def, f.min, *f.v)
		}
	}
	if c.Extractors == nil {
		c.Extractors = identifiers.DefaultExtractors()
	} else {
		c.Extractors = append([]identifiers.Extractor(nil), c.Extractors...)
	}
	return c, nil
}

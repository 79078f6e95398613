package compactfx

import (
	"go.yaml.in/yaml/v3"
)

// DefaultPrepareAt is compaction.prepare_at when a file does not set it
// and the default fits the file's compact_to and compact_at (see
// fitPrepareAt).
const DefaultPrepareAt = 0.45

// fitPrepareAt derives compaction.prepare_at from the file's own fractions
// when the file left the default in place and the default no longer lies
// between compact_to and compact_at (compact_to: 0.5, say): the background
// compaction then starts midway between the two. A prepare_at the file (or
// the application's struct, decoded from data) does write is kept as
// written, and Validate names it when it does not fit. Go users who build a
// Config themselves set PrepareAt; Validate's error says which default
// conflicts.
func fitPrepareAt(data []byte, cfg *Config) {
	c := &cfg.Compaction
	if c.PrepareAt != DefaultPrepareAt || (c.PrepareAt > c.CompactTo && c.PrepareAt < c.CompactAt) {
		return
	}
	if writesPrepareAt(data) {
		return
	}
	if c.CompactTo > 0 && c.CompactTo < c.CompactAt && c.CompactAt <= 1 {
		c.PrepareAt = (c.CompactTo + c.CompactAt) / 2
	}
}

// writesPrepareAt reports whether the YAML document data sets
// compaction.prepare_at, directly or through an alias or merge key.
func writesPrepareAt(data []byte) bool {
	var doc struct {
		Compaction struct {
			PrepareAt *yaml.Node `yaml:"prepare_at"`
		} `yaml:"compaction"`
	}
	// Errors leave the field nil: the strict decode has reported them.
	_ = yaml.Unmarshal(data, &doc)
	return doc.Compaction.PrepareAt != nil
}

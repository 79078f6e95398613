package compactfx

import (
	"time"

	"go.uber.org/fx"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// Archive kinds accepted in compaction.archive.kind.
const (
	// ArchiveNone keeps nothing a compaction removes (the default).
	ArchiveNone = "none"
	// ArchiveFile keeps it in a directory (compaction.NewFileArchive).
	ArchiveFile = "file"
	// ArchiveRedis names the Redis archive, which this release does not
	// have yet: Validate refuses it.
	ArchiveRedis = "redis"
)

// ArchiveConfig selects where what a compaction removes is kept
// (compaction.HookConfig.Archive). With an archive, the compacted messages
// name the reference that reads it back, and an agent running the module's
// registry offers its model the recall tool.
type ArchiveConfig struct {
	// Kind is "none" (default) or "file".
	Kind string `yaml:"kind"`
	// Dir is the file archive's directory. Required with kind file.
	Dir string `yaml:"dir"`
	// TTL is how long an archived entry is kept. Default 24h; > 0.
	TTL Duration `yaml:"ttl"`
	// MaxBytes bounds the archive's size; past it the least recently
	// written conversations are evicted. Default 268435456; >= 1.
	MaxBytes int `yaml:"max_bytes"`
}

// defaultArchive is ArchiveConfig's defaults, as DefaultConfig sets them.
func defaultArchive() ArchiveConfig {
	return ArchiveConfig{Kind: ArchiveNone, TTL: Duration(compaction.DefaultArchiveTTL), MaxBytes: compaction.DefaultArchiveMaxBytes}
}

func (a ArchiveConfig) validate(v *validator) {
	switch a.Kind {
	case ArchiveNone:
	case ArchiveFile:
		if a.Dir == "" {
			v.add("compaction.archive.dir", a.Dir, "is required with compaction.archive.kind %q", ArchiveFile)
		}
	case ArchiveRedis:
		v.add("compaction.archive.kind", a.Kind, "is not available in this release; use %q or %q", ArchiveFile, ArchiveNone)
	default:
		v.add("compaction.archive.kind", a.Kind, "must be one of %q, %q", ArchiveNone, ArchiveFile)
	}
	if a.TTL <= 0 {
		v.add("compaction.archive.ttl", a.TTL.String(), "must be above 0")
	}
	if a.MaxBytes < 1 {
		v.add("compaction.archive.max_bytes", a.MaxBytes, "must be at least 1")
	}
}

// moduleArchive is the archive the module's hook keeps removed messages in
// (nil Archive: none); a type of the module's own, so that an
// application's compaction.Archive is not taken for it.
type moduleArchive struct {
	compaction.Archive
}

type archiveIn struct {
	fx.In
	Config *Config
}

// provideArchive builds the archive of compaction.archive.kind.
func provideArchive(in archiveIn) (moduleArchive, error) {
	c := in.Config.Compaction.Archive
	if c.Kind != ArchiveFile {
		return moduleArchive{}, nil
	}
	a, err := compaction.NewFileArchive(c.Dir, compaction.WithArchiveTTL(time.Duration(c.TTL)), compaction.WithArchiveMaxBytes(int64(c.MaxBytes)))
	if err != nil {
		return moduleArchive{}, err
	}
	return moduleArchive{Archive: a}, nil
}

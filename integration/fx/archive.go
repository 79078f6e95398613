package compactfx

import (
	"context"
	"log/slog"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"go.uber.org/fx"

	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/integration/redisstore"
)

// Archive kinds accepted in compaction.archive.kind.
const (
	// ArchiveNone keeps nothing a compaction removes (the default).
	ArchiveNone = "none"
	// ArchiveFile keeps it in a directory (compaction.NewFileArchive).
	ArchiveFile = "file"
	// ArchiveRedis keeps it in Redis (redisstore.NewArchive), shared by
	// every replica, through the connection store.* describes (store.addr,
	// credentials, db, tls, key_prefix), whatever store.kind is.
	ArchiveRedis = "redis"
)

// ArchiveConfig selects where what a compaction removes is kept
// (compaction.HookConfig.Archive). With an archive, the compacted messages
// name the reference that reads it back, and an agent running the module's
// registry offers its model the recall tool.
type ArchiveConfig struct {
	// Kind is "none" (default), "file" or "redis" (needs store.addr).
	Kind string `yaml:"kind"`
	// Dir is the file archive's directory. Required with kind file.
	Dir string `yaml:"dir"`
	// TTL is how long an archived entry is kept. Default 24h; > 0.
	TTL Duration `yaml:"ttl"`
	// MaxBytes bounds the archive's size; past it the least recently
	// written conversations are evicted. Default 268435456; >= 1.
	MaxBytes int `yaml:"max_bytes"`
	// Redact masks secrets in what is archived before it is written
	// (compaction.RedactArchive with compaction.RedactSecrets, the
	// inspector's redaction): URL credentials and words that start like an
	// API key never reach the disk or Redis, and recall returns them
	// masked. Default false: archived text is kept as the agent saw it.
	Redact bool `yaml:"redact"`
}

// defaultArchive is ArchiveConfig's defaults, as DefaultConfig sets them.
func defaultArchive() ArchiveConfig {
	return ArchiveConfig{Kind: ArchiveNone, TTL: Duration(compaction.DefaultArchiveTTL), MaxBytes: compaction.DefaultArchiveMaxBytes}
}

// validate checks the archive's keys; kind redis also needs store's
// address, which store.validate checks only with store.kind redis.
func (a ArchiveConfig) validate(v *validator, store StoreConfig) {
	switch a.Kind {
	case ArchiveNone:
	case ArchiveFile:
		if a.Dir == "" {
			v.add("compaction.archive.dir", a.Dir, "is required with compaction.archive.kind %q", ArchiveFile)
		}
	case ArchiveRedis:
		switch {
		case store.Kind == StoreRedis: // store.validate checks the address
		case store.Addr == "":
			v.add("store.addr", store.Addr, "is required with compaction.archive.kind %q (env %s)", ArchiveRedis, EnvRedisAddr)
		default:
			v.hostPort("store.addr", store.Addr)
		}
	default:
		v.add("compaction.archive.kind", a.Kind, "must be one of %q, %q, %q", ArchiveNone, ArchiveFile, ArchiveRedis)
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
	// client is the Redis archive's client (nil for the other kinds): the
	// store's with store.kind redis.
	client goredis.UniversalClient
}

type archiveIn struct {
	fx.In
	Config    *Config
	Store     moduleStore
	Lifecycle fx.Lifecycle
	Logger    *slog.Logger `optional:"true"`
}

// provideArchive builds the archive of compaction.archive.kind, redacted
// with compaction.archive.redact.
func provideArchive(in archiveIn) (moduleArchive, error) {
	c := in.Config.Compaction.Archive
	var m moduleArchive
	var err error
	switch c.Kind {
	case ArchiveFile:
		m.Archive, err = compaction.NewFileArchive(c.Dir, compaction.WithArchiveTTL(time.Duration(c.TTL)), compaction.WithArchiveMaxBytes(int64(c.MaxBytes)))
	case ArchiveRedis:
		m, err = provideRedisArchive(in)
	default:
		return moduleArchive{}, nil
	}
	if err != nil || !c.Redact {
		return m, err
	}
	m.Archive, err = compaction.RedactArchive(m.Archive, compaction.RedactSecrets)
	return m, err
}

// provideRedisArchive shares the store's client with store.kind redis, and
// otherwise opens one of its own with store.*'s connection settings (so
// the archive works with any store.kind), closed when the application
// stops. Entries are authenticated with store.auth_key_env's key when it
// names one, under the archive's own namespace. Redis is not reached
// before the first compaction: one that does not answer then fails the
// archiving, which the hook logs while still compacting.
func provideRedisArchive(in archiveIn) (moduleArchive, error) {
	c, s := in.Config.Compaction.Archive, in.Config.Store
	auth, err := storeHMAC(s, redisstore.ArchiveNamespace(s.KeyPrefix))
	if err != nil {
		return moduleArchive{}, err
	}
	cfg := redisstore.ArchiveConfig{Client: in.Store.client, KeyPrefix: s.KeyPrefix, TTL: time.Duration(c.TTL), MaxBytes: int64(c.MaxBytes)}
	if auth != nil {
		cfg.Seal, cfg.Open = auth.Seal, auth.Open
	}
	own := cfg.Client == nil
	if own {
		redisstore.RouteLogs(orDefault(in.Logger))
		if cfg.Client, err = redisstore.NewClient(redisClientConfig(s)); err != nil {
			return moduleArchive{}, err
		}
	}
	a, err := redisstore.NewArchive(cfg)
	switch {
	case err != nil && own:
		_ = cfg.Client.Close()
		return moduleArchive{}, err
	case err != nil:
		return moduleArchive{}, err
	case own:
		in.Lifecycle.Append(fx.Hook{OnStop: func(context.Context) error { return cfg.Client.Close() }})
	}
	return moduleArchive{Archive: a, client: cfg.Client}, nil
}

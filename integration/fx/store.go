package compactfx

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"os"

	goredis "github.com/redis/go-redis/v9"
	"go.uber.org/fx"

	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/integration/redisstore"
)

// moduleStore is the store the module's hook shares compactions through
// (nil Store: none), with the scope they are shared under. A type of the
// module's own, so that an application's compaction.Store is not taken for
// it.
type moduleStore struct {
	compaction.Store
	scope string
	// client is the Redis client of store.kind redis (nil otherwise),
	// which the Redis archive shares.
	client goredis.UniversalClient
}

type storeIn struct {
	fx.In
	Config    *Config
	Lifecycle fx.Lifecycle
	Logger    *slog.Logger `optional:"true"`
}

// provideStore builds the store of store.kind. With kind redis, go-redis'
// own log lines go to the application's logger (redisstore.RouteLogs: one
// logger per process, so the last application built wins), the client
// is created here, pinged when the application starts (a Redis that does
// not answer is logged, not fatal: the hook compacts locally until it
// does) and closed when it stops; fx stops in reverse order, so after the
// hooks, whose Close waits for their last publications.
func provideStore(in storeIn) (moduleStore, error) {
	c := in.Config.Store
	// The summarizer's model is not visible in the compactor's identity:
	// replicas writing summaries with different models must not share them.
	ep, _ := in.Config.SummarizerEndpoint()
	scope := c.Scope + "\x00summarizer_model=" + ep.Model
	switch c.Kind {
	case StoreMemory:
		return moduleStore{Store: compaction.NewMemoryStore(), scope: scope}, nil
	case StoreRedis:
	default:
		return moduleStore{}, nil
	}
	log := orDefault(in.Logger)
	redisstore.RouteLogs(log)
	client, err := redisstore.NewClient(redisClientConfig(c))
	if err != nil {
		return moduleStore{}, err
	}
	scfg := redisstore.Config{Client: client, KeyPrefix: c.KeyPrefix, MaxEntryBytes: c.MaxEntryBytes, Logger: log}
	if err := authenticate(&scfg, c); err != nil {
		_ = client.Close()
		return moduleStore{}, err
	}
	store, err := redisstore.New(scfg)
	if err != nil {
		_ = client.Close()
		return moduleStore{}, err
	}
	in.Lifecycle.Append(fx.Hook{
		OnStart: func(ctx context.Context) error {
			if err := client.Ping(ctx).Err(); err != nil {
				log.WarnContext(ctx, "store: Redis does not answer; compacting locally until it does", "addr", c.Addr, "error", err.Error())
			}
			return nil
		},
		OnStop: func(context.Context) error { return client.Close() },
	})
	return moduleStore{Store: store, scope: scope, client: client}, nil
}

// redisClientConfig is the connection store.* describes, shared by the
// store and the Redis archive.
func redisClientConfig(c StoreConfig) redisstore.ClientConfig {
	cc := redisstore.ClientConfig{Addrs: []string{c.Addr}, Username: c.Username, Password: c.Password, DB: c.DB}
	if c.TLS {
		cc.TLS = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	return cc
}

// authenticate sets cfg's Seal and Open to an HMAC with the key in the
// variable store.auth_key_env names, when it names one. The key is read
// when the module is built, so a missing one stops the application from
// starting instead of leaving its entries unauthenticated.
func authenticate(cfg *redisstore.Config, c StoreConfig) error {
	auth, err := storeHMAC(c, cfg.KeyPrefix)
	if auth != nil {
		cfg.Seal, cfg.Open = auth.Seal, auth.Open
	}
	return err
}

// storeHMAC is the HMAC with the key in the variable store.auth_key_env
// names over namespace (its default: redisstore.DefaultKeyPrefix), or nil
// when it names none.
func storeHMAC(c StoreConfig, namespace string) (*redisstore.HMAC, error) {
	if c.AuthKeyEnv == "" {
		return nil, nil
	}
	key, _ := os.LookupEnv(c.AuthKeyEnv)
	if key == "" {
		return nil, fmt.Errorf("config: store.auth_key_env = %q: the variable is unset or empty; set it to the key (at least %d bytes) on every replica, or remove store.auth_key_env",
			c.AuthKeyEnv, redisstore.MinAuthKeyBytes)
	}
	if namespace == "" {
		namespace = redisstore.DefaultKeyPrefix
	}
	auth, err := redisstore.NewHMAC([]byte(key), namespace)
	if err != nil {
		return nil, fmt.Errorf("config: store.auth_key_env = %q: the key it holds is %d bytes, want at least %d", c.AuthKeyEnv, len(key), redisstore.MinAuthKeyBytes)
	}
	return auth, nil
}

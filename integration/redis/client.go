package redis

import (
	"crypto/tls"
	"errors"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// ClientConfig is what NewClient needs to reach Redis.
type ClientConfig struct {
	// Addrs are host:port addresses: one for a single node, several for a
	// Cluster, the Sentinels' with MasterName. Required.
	Addrs []string
	// MasterName selects Sentinel mode. Default "".
	MasterName string
	// Username and Password authenticate (Redis ACLs). Default none. They
	// are handed to the client only; nothing here stores or logs them.
	Username, Password string
	// DB selects the database (single node and Sentinel). Default 0.
	DB int
	// TLS, when set, is used for every connection. Default nil: plain TCP.
	TLS *tls.Config
	// Timeout bounds dialling and each read and write. Default 1s.
	Timeout time.Duration
}

// NewClient returns a UniversalClient for cfg that honours ctx deadlines
// (ContextTimeoutEnabled) and does not retry, since the hook bounds every
// store call and falls back to local compaction instead: a Redis that is
// slow or down costs a run one bounded call. The pool reconnects by itself.
func NewClient(cfg ClientConfig) (goredis.UniversalClient, error) {
	if len(cfg.Addrs) == 0 {
		return nil, errors.New("redis: ClientConfig.Addrs is required")
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = time.Second
	}
	return goredis.NewUniversalClient(&goredis.UniversalOptions{
		Addrs: cfg.Addrs, MasterName: cfg.MasterName, Username: cfg.Username, Password: cfg.Password, DB: cfg.DB,
		TLSConfig: cfg.TLS, DialTimeout: timeout, ReadTimeout: timeout, WriteTimeout: timeout,
		ContextTimeoutEnabled: true, MaxRetries: -1,
	}), nil
}

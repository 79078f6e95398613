package redisstore

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
	// Timeout bounds each dial attempt (there is one per connection) and
	// each read and write. Default 1s.
	Timeout time.Duration
}

// NewClient returns a UniversalClient for cfg that honours ctx deadlines
// (ContextTimeoutEnabled) and retries neither a command (MaxRetries -1) nor
// a dial (DialerRetries 1: one attempt; go-redis' default makes five, 100ms
// apart, so a refused connection cost 400ms), and runs pipelines on the
// main pool (PipelinePoolSize -1: a dial failing in the pipeline pool is
// otherwise tried again in the main one), since the hook bounds every
// store call and falls back to local compaction instead: a Redis that is
// down fails a call at once, and one that is slow costs a run one call
// bounded by Timeout and the caller's ctx. The pool reconnects by itself on
// a later call.
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
		ContextTimeoutEnabled: true, MaxRetries: -1, DialerRetries: 1, PipelinePoolSize: -1,
	}), nil
}

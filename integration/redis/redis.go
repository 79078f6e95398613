// Package redis is the old path of package redisstore
// (github.com/einocompact/einocompact/integration/redisstore), kept for one
// release so that code written against it still compiles. Its name clashed
// with go-redis's own package, which every user of it also imports.
//
// Deprecated: import github.com/einocompact/einocompact/integration/redisstore.
package redis

import "github.com/einocompact/einocompact/integration/redisstore"

// Deprecated aliases of package redisstore's names; each means what the
// name of the same spelling there means.
type (
	// Deprecated: use redisstore.Store.
	Store = redisstore.Store
	// Deprecated: use redisstore.Config.
	Config = redisstore.Config
	// Deprecated: use redisstore.ClientConfig.
	ClientConfig = redisstore.ClientConfig
	// Deprecated: use redisstore.HMAC.
	HMAC = redisstore.HMAC
)

// Deprecated aliases of package redisstore's constants.
const (
	// Deprecated: use redisstore.DefaultKeyPrefix.
	DefaultKeyPrefix = redisstore.DefaultKeyPrefix
	// Deprecated: use redisstore.DefaultMaxEntryBytes.
	DefaultMaxEntryBytes = redisstore.DefaultMaxEntryBytes
	// Deprecated: use redisstore.DefaultPollInterval.
	DefaultPollInterval = redisstore.DefaultPollInterval
	// Deprecated: use redisstore.DefaultIndexTTL.
	DefaultIndexTTL = redisstore.DefaultIndexTTL
	// Deprecated: use redisstore.MinAuthKeyBytes.
	MinAuthKeyBytes = redisstore.MinAuthKeyBytes
)

// Deprecated aliases of package redisstore's functions.
var (
	// Deprecated: use redisstore.New.
	New = redisstore.New
	// Deprecated: use redisstore.NewClient.
	NewClient = redisstore.NewClient
	// Deprecated: use redisstore.NewHMAC.
	NewHMAC = redisstore.NewHMAC
	// Deprecated: use redisstore.RouteLogs.
	RouteLogs = redisstore.RouteLogs
)

package redis_test

import (
	"reflect"
	"testing"

	"github.com/einocompact/einocompact/integration/redis"
	"github.com/einocompact/einocompact/integration/redisstore"
)

// Code written against the old path keeps compiling and means the same:
// every name is the redisstore one, not a copy of it.
func TestOldPathNamesAreRedisstores(t *testing.T) {
	t.Parallel()
	types := []struct{ old, now any }{
		{redis.Store{}, redisstore.Store{}},
		{redis.Config{}, redisstore.Config{}},
		{redis.ClientConfig{}, redisstore.ClientConfig{}},
		{redis.HMAC{}, redisstore.HMAC{}},
	}
	for _, tc := range types {
		if reflect.TypeOf(tc.old) != reflect.TypeOf(tc.now) {
			t.Errorf("%T is not %T", tc.old, tc.now)
		}
	}
	funcs := []struct {
		name     string
		old, now any
	}{
		{"New", redis.New, redisstore.New},
		{"NewClient", redis.NewClient, redisstore.NewClient},
		{"NewHMAC", redis.NewHMAC, redisstore.NewHMAC},
		{"RouteLogs", redis.RouteLogs, redisstore.RouteLogs},
	}
	for _, tc := range funcs {
		if reflect.ValueOf(tc.old).Pointer() != reflect.ValueOf(tc.now).Pointer() {
			t.Errorf("redis.%s is not redisstore.%s", tc.name, tc.name)
		}
	}
	if redis.DefaultKeyPrefix != redisstore.DefaultKeyPrefix || redis.DefaultMaxEntryBytes != redisstore.DefaultMaxEntryBytes ||
		redis.DefaultPollInterval != redisstore.DefaultPollInterval || redis.DefaultIndexTTL != redisstore.DefaultIndexTTL ||
		redis.MinAuthKeyBytes != redisstore.MinAuthKeyBytes {
		t.Error("a constant of the old path differs from redisstore's")
	}
}

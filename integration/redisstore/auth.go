package redisstore

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
)

// MinAuthKeyBytes is the shortest key NewHMAC accepts: SHA-256's size.
const MinAuthKeyBytes = 32

// HMAC authenticates stored entries with HMAC-SHA256 over a namespace and
// the entry, so that a replica applies only entries written by a holder of
// the same key for the same namespace. Without it, anyone who can write to
// Redis can store an entry that passes the hook's checks (it keeps the
// system prompt, the request and the tool-call pairing) with a summary of
// their choosing, and every replica applies it. Use its methods as
// Config.Seal and Config.Open:
//
//	auth, err := redis.NewHMAC(key, cfg.KeyPrefix)
//	cfg.Seal, cfg.Open = auth.Seal, auth.Open
//
// It authenticates, it does not encrypt: what Redis holds stays readable.
// To encrypt too, use an authenticated cipher (AES-GCM) in Seal and Open
// instead, which covers both. Safe for concurrent use.
type HMAC struct {
	key       []byte
	namespace string
}

// NewHMAC returns an HMAC with key (at least MinAuthKeyBytes bytes, e.g.
// from a secret store; the replicas sharing entries share it) over
// namespace (the stores' KeyPrefix, so an entry copied from another
// deployment using the same key is refused too).
func NewHMAC(key []byte, namespace string) (*HMAC, error) {
	if len(key) < MinAuthKeyBytes {
		return nil, fmt.Errorf("redis: NewHMAC: the key is %d bytes, want at least %d", len(key), MinAuthKeyBytes)
	}
	return &HMAC{key: append([]byte(nil), key...), namespace: namespace}, nil
}

// errForged is Open's error for an entry whose tag does not match.
var errForged = errors.New("redis: entry not authenticated: its HMAC does not match (forged, tampered, or written with another key or namespace)")

// Seal returns the tag (sha256.Size bytes) followed by plain.
func (a *HMAC) Seal(plain []byte) ([]byte, error) {
	return append(a.tag(plain), plain...), nil
}

// Open returns the entry sealed whose tag matches, else an error.
func (a *HMAC) Open(sealed []byte) ([]byte, error) {
	if len(sealed) < sha256.Size {
		return nil, errForged
	}
	tag, plain := sealed[:sha256.Size], sealed[sha256.Size:]
	if !hmac.Equal(tag, a.tag(plain)) {
		return nil, errForged
	}
	return plain, nil
}

// tag is the MAC of the namespace, length-prefixed so that no namespace and
// entry pair reads as another, and the entry.
func (a *HMAC) tag(plain []byte) []byte {
	m := hmac.New(sha256.New, a.key)
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(a.namespace)))
	m.Write([]byte("einocompact-redis-hmac/1\x00"))
	m.Write(n[:])
	m.Write([]byte(a.namespace))
	m.Write(plain)
	return m.Sum(make([]byte, 0, sha256.Size))
}

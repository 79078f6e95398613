package share

import (
	"errors"
)

// ErrLeaseLost is the value of compaction.ErrLeaseLost: a lease that
// expired, whose key's lease or entry is no longer the caller's.
var ErrLeaseLost = errors.New("compaction: store lease lost")

// Lease mirrors compaction.Lease (the same fields, so the two convert):
// the right to publish under Key, proved by Token; the zero Lease holds
// nothing.
type Lease struct {
	Key   string
	Token string
}

// Held reports whether l holds a lease.
func (l Lease) Held() bool { return l.Token != "" }

package shape

import (
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/digest"
)

// MergeAppended decides what the hook writes back once a compaction of
// snapshot finished while current is what State.Messages holds now. Messages
// appended since the snapshot (by whatever wrote to the state while the
// summarizer was busy) follow the compacted conversation, so no write is
// lost. When current no longer starts with snapshot, someone rewrote the
// conversation meanwhile; ok is false and the caller keeps that rewrite,
// since merging two rewrites could drop or duplicate messages. A message of
// current equal in content to the snapshot's (a middleware that copies every
// message) is no rewrite (digest.Same).
func MergeAppended(snapshot, current, compacted []*schema.Message) (merged []*schema.Message, ok bool) {
	if len(current) < len(snapshot) {
		return nil, false
	}
	for i, m := range snapshot {
		if !digest.Same(current[i], m) {
			return nil, false
		}
	}
	if len(current) == len(snapshot) {
		return compacted, true
	}
	merged = make([]*schema.Message, 0, len(compacted)+len(current)-len(snapshot))
	merged = append(merged, compacted...)
	return append(merged, current[len(snapshot):]...), true
}

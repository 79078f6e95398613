// Package share says what a Store shares: a compaction result, encoded
// under its key and checked when read back before it is applied, and the
// lease that proves the right to publish one.
//
// What a store hands back is never trusted: Decode refuses an entry of
// another version, one published under another key or for another length,
// and one whose messages break what a result must keep (Check). The keys
// themselves (Anchors, AnchorIndex, KeyLength) are plain strings and
// lengths; the hook, which knows its scope, computes the digests they name.
//
// It uses internal/message, internal/digest and internal/shape, and no other
// package of hooks/compaction; the engine's store code (internal/engine,
// share.go and lease.go) and internal/memstore call it. This file is the
// door the conversation passes through: the entry, its encoding and its
// checks.
package share

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/digest"
	"github.com/einocompact/einocompact/hooks/compaction/internal/message"
	"github.com/einocompact/einocompact/hooks/compaction/internal/shape"
)

// Version is the version of the encoding of a shared compaction. A hook
// refuses an entry of any other version: an entry written by a newer
// release, whose meaning it cannot know, is ignored, never guessed at.
const Version = 1

// Entry is a shared compaction as a Store holds it: the result of
// compacting the first Length messages of a conversation, whose scoped
// prefix digest is Key's.
type Entry struct {
	Version int               `json:"v"`
	Key     string            `json:"key"`
	Length  int               `json:"n"`
	Result  []*schema.Message `json:"result"`
	// Step is State.StepCount where the compaction started, for logs.
	Step int `json:"step"`
}

// Encode writes e, of this release's Version, as a store holds it.
func Encode(e Entry) ([]byte, error) {
	e.Version = Version
	return json.Marshal(e)
}

// Decode reads an entry loaded under key for snapshot (the conversation's
// first n messages, n read from key) and checks it: its version, that it
// was published under this key (a stored value copied to another key is
// refused), and the invariants a result must keep for this snapshot
// (Check). Any failure is an error saying what is wrong; the caller then
// goes on without the entry.
func Decode(raw []byte, key string, snapshot []*schema.Message) ([]*schema.Message, error) {
	var head struct {
		Version int `json:"v"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, fmt.Errorf("compaction: shared entry %s: undecodable: %w", key, err)
	}
	if head.Version != Version {
		return nil, fmt.Errorf("compaction: shared entry %s: version %d, this release reads %d", key, head.Version, Version)
	}
	var e Entry
	if err := json.Unmarshal(raw, &e); err != nil {
		return nil, fmt.Errorf("compaction: shared entry %s: undecodable: %w", key, err)
	}
	if e.Key != key || e.Length != len(snapshot) {
		return nil, fmt.Errorf("compaction: shared entry %s: written for key %q, %d messages", key, e.Key, e.Length)
	}
	if err := Check(snapshot, e.Result); err != nil {
		return nil, fmt.Errorf("compaction: shared entry %s: %w", key, err)
	}
	return e.Result, nil
}

// Check checks what a result from elsewhere must keep of snapshot: no tool
// call parted from its results, the leading system messages as they were,
// and the current request (the last message the user wrote). Whether it is
// smaller is judged by the hook's own counter when applied.
func Check(snapshot, result []*schema.Message) error {
	if len(result) == 0 {
		return fmt.Errorf("an empty result")
	}
	if slices.Contains(result, nil) {
		return fmt.Errorf("a nil message in the result")
	}
	if err := shape.NewFaults(snapshot, result); err != nil {
		return err
	}
	for i, m := range snapshot {
		if m == nil || m.Role != schema.System {
			break
		}
		if i >= len(result) || !digest.Same(result[i], m) {
			return fmt.Errorf("system message %d not kept", i)
		}
	}
	for i := len(snapshot) - 1; i >= 0; i-- {
		if message.IsRealUser(snapshot[i]) {
			for _, m := range result {
				if digest.Same(m, snapshot[i]) {
					return nil
				}
			}
			return fmt.Errorf("the current request (message %d) not kept", i)
		}
	}
	return nil
}

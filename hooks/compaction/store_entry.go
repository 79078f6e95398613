package compaction

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/digest"
	"github.com/einocompact/einocompact/hooks/compaction/internal/shape"
)

// storeEntryVersion is the version of the encoding of a shared compaction.
// A hook refuses an entry of any other version: an entry written by a newer
// release, whose meaning it cannot know, is ignored, never guessed at.
const storeEntryVersion = 1

// storedEntry is a shared compaction as a Store holds it: the result of
// compacting the first Length messages of a conversation, whose scoped
// prefix digest is Key's.
type storedEntry struct {
	Version int               `json:"v"`
	Key     string            `json:"key"`
	Length  int               `json:"n"`
	Result  []*schema.Message `json:"result"`
	// Step is State.StepCount where the compaction started, for logs.
	Step int `json:"step"`
}

// Identifier is implemented by compactors whose results a Store may share:
// CompactionIdentity names the compactor and every setting that shapes its
// result, so that hooks share only results their own compactor could have
// written. SummarizationCompactor, SlidingWindowCompactor,
// ToolResultPruningCompactor and Pipeline implement it. A hook with a Store
// requires it of its compactor (NewCompactionHook).
type Identifier interface {
	CompactionIdentity() string
}

// storeScopeOf is the digest of everything besides the conversation that a
// shared result depends on: the compactor's identity, HookConfig.StoreScope,
// the hook's window and fractions, and the counter's type.
func (h *CompactionHook) storeScopeOf(identity, scope string) Digest {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\x00compactor=%s\x00scope=%s\x00window=%d\x00at=%v\x00to=%v\x00counter=%T",
		digest.Version, identity, scope, h.window, h.at, h.to, h.counter)
	// The prices that choose the depth change what a compaction keeps.
	if h.depth != nil {
		fmt.Fprintf(&b, "\x00depth=%v/%v/%v", h.depth.CachedInput, h.depth.CacheWrite, h.depth.Output)
	}
	return sha256.Sum256([]byte(b.String()))
}

// storeKeys returns the keys of messages[:n] in the store: conv, the index
// list the prefix is filed under (convKey of its longest anchor), and key,
// naming this prefix (its length and scoped prefix digest). ok is false
// when the conversation has no message but system ones, or n ends before
// its first other message.
func (h *CompactionHook) storeKeys(messages []*schema.Message, n int) (conv, key string, ok bool) {
	anchors := storeAnchors(messages, n)
	if len(anchors) == 0 {
		return "", "", false
	}
	return h.convKey(messages[:anchors[0]]), h.prefixKey(messages[:n]), true
}

// storeAnchors returns the lengths of the index lists a prefix of n
// messages may be filed under, longest first: the conversation's opening
// (its system messages and first other message), then twice, four times,
// ... its length, up to n. A prefix is filed under its longest anchor, so a
// list holds the prefixes of conversations that agree on every message up
// to the anchor. Conversations sharing only an opening (one system prompt
// and one first question for every user) then share one short list, for
// the prefixes compacted before the opening's double, instead of one list
// for everything, where a burst of claims pushed the keys out before
// another replica looked them up (issue 30 item 2). A lookup reads at most
// log2(n / opening) + 1 lists, longest first, and stops at the first that
// holds a published result.
func storeAnchors(messages []*schema.Message, n int) []int {
	a := anchorIndex(messages)
	if a < 0 || n <= a {
		return nil
	}
	var out []int
	for l := a + 1; l <= n; l *= 2 {
		out = append(out, l)
	}
	slices.Reverse(out)
	return out
}

func (h *CompactionHook) convKey(head []*schema.Message) string {
	d := PrefixDigest(head)
	sum := sha256.Sum256(append(append([]byte("conv\x00"), h.sharing.scope[:]...), d[:]...))
	return "c." + hex.EncodeToString(sum[:])
}

func (h *CompactionHook) prefixKey(prefix []*schema.Message) string {
	d := PrefixDigest(prefix)
	sum := sha256.Sum256(append(append([]byte("prefix\x00"), h.sharing.scope[:]...), d[:]...))
	return strconv.Itoa(len(prefix)) + "." + hex.EncodeToString(sum[:])
}

// keyLength reads the prefix length a key names; ok is false for a key
// that is not one of prefixKey's.
func keyLength(key string) (n int, ok bool) {
	i := strings.IndexByte(key, '.')
	if i <= 0 {
		return 0, false
	}
	n, err := strconv.Atoi(key[:i])
	return n, err == nil && n > 0 && len(key)-i-1 == 2*sha256.Size
}

// anchorIndex is the index of jobs.AnchorOf, or -1.
func anchorIndex(messages []*schema.Message) int {
	for i, m := range messages {
		if m != nil && m.Role != schema.System {
			return i
		}
	}
	return -1
}

func encodeEntry(e storedEntry) ([]byte, error) {
	e.Version = storeEntryVersion
	return json.Marshal(e)
}

// decodeEntry reads an entry loaded under key for snapshot (the
// conversation's first n messages, n read from key) and checks it: its
// version, that it was published under this key (a stored value copied to
// another key is refused), and the invariants a result must keep for this
// snapshot (checkShared). Any failure is an error saying what is wrong;
// the caller then goes on without the entry.
func decodeEntry(raw []byte, key string, snapshot []*schema.Message) ([]*schema.Message, error) {
	var head struct {
		Version int `json:"v"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, fmt.Errorf("compaction: shared entry %s: undecodable: %w", key, err)
	}
	if head.Version != storeEntryVersion {
		return nil, fmt.Errorf("compaction: shared entry %s: version %d, this release reads %d", key, head.Version, storeEntryVersion)
	}
	var e storedEntry
	if err := json.Unmarshal(raw, &e); err != nil {
		return nil, fmt.Errorf("compaction: shared entry %s: undecodable: %w", key, err)
	}
	if e.Key != key || e.Length != len(snapshot) {
		return nil, fmt.Errorf("compaction: shared entry %s: written for key %q, %d messages", key, e.Key, e.Length)
	}
	if err := checkShared(snapshot, e.Result); err != nil {
		return nil, fmt.Errorf("compaction: shared entry %s: %w", key, err)
	}
	return e.Result, nil
}

// checkShared checks what a result from elsewhere must keep of snapshot:
// no tool call parted from its results, the leading system messages as
// they were, and the current request (the last message the user wrote).
// Whether it is smaller is judged by the hook's own counter when applied.
func checkShared(snapshot, result []*schema.Message) error {
	if len(result) == 0 {
		return fmt.Errorf("an empty result")
	}
	if slicesContainsNil(result) {
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
		if IsRealUser(snapshot[i]) {
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

func slicesContainsNil(msgs []*schema.Message) bool {
	for _, m := range msgs {
		if m == nil {
			return true
		}
	}
	return false
}

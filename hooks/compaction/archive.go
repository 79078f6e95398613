package compaction

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/message"
)

// Archive keeps what compaction removed, so that nothing a compaction
// replaces is lost: the spans a summary replaced, the tool results a pruner
// replaced with placeholders, the messages a sliding window dropped. Set on
// the hook as HookConfig.Archive; the hook archives the removed messages
// before it applies a compaction and leaves, in the message that replaced
// them, one line naming the reference under which they are kept and the
// tool that reads them back (NewRecallTool).
//
// Entries are filed by conversation (ArchiveConversation). A reference names
// its conversation and is signed with a key only the archive knows, so a
// reference that was forged, guessed or altered is refused
// (ErrArchiveReference), and one of another conversation is refused where
// the caller's conversation is known (ErrArchiveScope). Implementations must
// be safe for concurrent use. NewFileArchive is the default that needs
// nothing but a directory.
type Archive interface {
	// Put archives messages under conversation conv and returns the
	// reference that reads them back. conv is printable ASCII without
	// spaces (ArchiveConversation's form). Put never keeps messages
	// themselves: it stores an encoding of them.
	Put(ctx context.Context, conv string, messages []*schema.Message) (ref string, err error)
	// Get returns the conversation ref was issued for and the messages
	// archived under it. A reference the archive did not issue returns an
	// error wrapping ErrArchiveReference; an entry expired or evicted, one
	// wrapping ErrArchiveNotFound.
	Get(ctx context.Context, ref string) (conv string, messages []*schema.Message, err error)
}

var (
	// ErrArchiveReference is wrapped by the errors of a reference the
	// archive did not issue: malformed, forged, guessed or altered.
	ErrArchiveReference = errors.New("compaction: not a reference this archive issued")
	// ErrArchiveNotFound is wrapped by the errors of a genuine reference
	// whose entry is gone: expired (TTL) or evicted (size cap).
	ErrArchiveNotFound = errors.New("compaction: archived entry not found (expired or evicted)")
	// ErrArchiveScope is wrapped by the errors of a reference issued for
	// another conversation than the caller's.
	ErrArchiveScope = errors.New("compaction: archived entry belongs to another conversation")
)

// archiveRefPrefix starts every reference; the version after "arc" lets a
// later encoding refuse an old one cleanly.
const archiveRefPrefix = "arc1-"

// Sizes, in bytes before hex, of a reference's parts. The conversation part
// is the full ArchiveConversation digest's first half: enough that two
// conversations never collide, short enough to copy.
const (
	refConvBytes  = 16
	refEntryBytes = 8
	refMACBytes   = 12
)

// ArchiveConversation returns the conversation key under which the archive
// files messages: "cv" and 32 hex digits. It is the key of the conversation's
// lineage, stable across compactions: when a message carries the archive
// reference of an earlier compaction in its marker (the hook writes it
// there), the key is that reference's conversation; otherwise it is the
// digest of the conversation's system messages and first other message, the
// anchor the Store files conversations by. ok is false when messages hold
// nothing but system messages.
//
// A marker is set by code, never by the model or the user's text, so the
// lineage cannot be claimed by what the agent writes.
func ArchiveConversation(messages []*schema.Message) (conv string, ok bool) {
	for _, m := range messages {
		if ref, found := archiveRefOf(m); found {
			if c, _, _, err := parseArchiveRef(ref); err == nil {
				return c, true
			}
		}
	}
	a := anchorIndex(messages)
	if a < 0 {
		return "", false
	}
	d := PrefixDigest(messages[:a+1])
	sum := sha256.Sum256(append([]byte("einocompact/archive/conv\x00"), d[:]...))
	return "cv" + hex.EncodeToString(sum[:refConvBytes]), true
}

// archiveMarkerKey is the marker field holding a compaction's archive
// reference.
const archiveMarkerKey = "archive"

// archiveRefOf returns the archive reference in m's marker.
func archiveRefOf(m *schema.Message) (string, bool) {
	fields, ok := message.Fields(m)
	if !ok {
		return "", false
	}
	ref, ok := fields[archiveMarkerKey].(string)
	return ref, ok && ref != ""
}

// ArchiveRefOf returns the archive reference a compaction left in msg's
// marker (HookConfig.Archive), and false when it left none.
func ArchiveRefOf(msg *schema.Message) (string, bool) { return archiveRefOf(msg) }

// refSigner issues and checks references with one archive's key.
type refSigner struct{ key []byte }

func (s refSigner) mac(conv, entry string) string {
	h := hmac.New(sha256.New, s.key)
	h.Write([]byte(conv))
	h.Write([]byte{0})
	h.Write([]byte(entry))
	return hex.EncodeToString(h.Sum(nil)[:refMACBytes])
}

// issue returns the reference of entry in conv.
func (s refSigner) issue(conv, entry string) string {
	return archiveRefPrefix + conv + "-" + entry + "-" + s.mac(conv, entry)
}

// check parses ref and verifies its signature; the error wraps
// ErrArchiveReference.
func (s refSigner) check(ref string) (conv, entry string, err error) {
	conv, entry, mac, err := parseArchiveRef(ref)
	if err != nil {
		return "", "", err
	}
	if !hmac.Equal([]byte(mac), []byte(s.mac(conv, entry))) {
		return "", "", fmt.Errorf("%w: the signature of reference %q does not match", ErrArchiveReference, clip(ref))
	}
	return conv, entry, nil
}

// parseArchiveRef splits a reference into its parts, checking only its form.
func parseArchiveRef(ref string) (conv, entry, mac string, err error) {
	bad := func(why string) error {
		return fmt.Errorf("%w: reference %q %s", ErrArchiveReference, clip(ref), why)
	}
	rest, ok := strings.CutPrefix(strings.TrimSpace(ref), archiveRefPrefix)
	if !ok {
		return "", "", "", bad("does not start with " + archiveRefPrefix)
	}
	parts := strings.Split(rest, "-")
	if len(parts) != 3 {
		return "", "", "", bad("does not have the form " + archiveRefPrefix + "CONVERSATION-ENTRY-SIGNATURE")
	}
	conv, entry, mac = parts[0], parts[1], parts[2]
	c, ok := strings.CutPrefix(conv, "cv")
	if !ok || !isHex(c, refConvBytes) || !isHex(entry, refEntryBytes) || !isHex(mac, refMACBytes) {
		return "", "", "", bad("has a malformed part")
	}
	return conv, entry, mac, nil
}

func isHex(s string, n int) bool {
	if len(s) != 2*n {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil && strings.ToLower(s) == s
}

// clip keeps an error about a bad reference short when the caller sent a
// long string.
func clip(s string) string {
	const max = 96
	if len(s) <= max {
		return s
	}
	return s[:max] + "..."
}

package archive

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/digest"
	"github.com/einocompact/einocompact/hooks/compaction/internal/message"
)

var (
	// ErrReference is wrapped by the errors of a reference the archive did
	// not issue: malformed, forged, guessed or altered
	// (compaction.ErrArchiveReference is this value).
	ErrReference = errors.New("compaction: not a reference this archive issued")
	// ErrNotFound is wrapped by the errors of a genuine reference whose
	// entry is gone: expired (TTL) or evicted (size cap)
	// (compaction.ErrArchiveNotFound is this value).
	ErrNotFound = errors.New("compaction: archived entry not found (expired or evicted)")
	// ErrScope is wrapped by the errors of a reference issued for another
	// conversation than the caller's, which the recall tool refuses
	// (compaction.ErrArchiveScope is this value).
	ErrScope = errors.New("compaction: archived entry belongs to another conversation")
)

// refPrefix starts every reference; the version after "arc" lets a later
// encoding refuse an old one cleanly.
const refPrefix = "arc1-"

// Sizes, in bytes before hex, of a reference's parts. The conversation part
// is the full conversation digest's first half: enough that two
// conversations never collide, short enough to copy.
const (
	refConvBytes  = 16
	refEntryBytes = 8
	refMACBytes   = 12
)

// MarkerKey is the marker field holding a compaction's archive reference.
const MarkerKey = "archive"

// MinKeyBytes is the shortest key NewSigner accepts.
const MinKeyBytes = 16

// conversation returns the conversation key of the lineage anchored by
// prefix (the digest of the conversation's system messages and first other
// message): "cv" and 32 hex digits.
func conversation(prefix [32]byte) string {
	sum := sha256.Sum256(append([]byte("einocompact/archive/conv\x00"), prefix[:]...))
	return "cv" + hex.EncodeToString(sum[:refConvBytes])
}

// RefOf returns the archive reference in m's marker.
func RefOf(m *schema.Message) (string, bool) {
	fields, ok := message.Fields(m)
	if !ok {
		return "", false
	}
	ref, ok := fields[MarkerKey].(string)
	return ref, ok && ref != ""
}

// Signer issues and checks references with one archive's key; a nil
// Signer refuses both (the zero compaction.ArchiveRefs).
type Signer struct{ key []byte }

// NewSigner returns the signer of key (copied), which must be at least
// MinKeyBytes long (compaction.NewArchiveRefs).
func NewSigner(key []byte) (*Signer, error) {
	if len(key) < MinKeyBytes {
		return nil, fmt.Errorf("compaction: NewArchiveRefs: the key is %d bytes, want at least %d", len(key), MinKeyBytes)
	}
	return &Signer{key: append([]byte(nil), key...)}, nil
}

func (s *Signer) mac(conv, entry string) string {
	h := hmac.New(sha256.New, s.key)
	h.Write([]byte(conv))
	h.Write([]byte{0})
	h.Write([]byte(entry))
	return hex.EncodeToString(h.Sum(nil)[:refMACBytes])
}

// Issue returns a new entry id in conversation conv and its reference;
// conv must be a key from Conversation.
func (s *Signer) Issue(conv string) (ref, entry string, err error) {
	if s == nil {
		return "", "", errors.New("compaction: ArchiveRefs is not made by NewArchiveRefs")
	}
	if c, ok := strings.CutPrefix(conv, "cv"); !ok || !isHex(c, refConvBytes) {
		return "", "", fmt.Errorf("compaction: archiving: conversation %q is not a key from ArchiveConversation", clip(conv))
	}
	entry = hex.EncodeToString(randomBytes(refEntryBytes))
	return refPrefix + conv + "-" + entry + "-" + s.mac(conv, entry), entry, nil
}

// Check parses ref and verifies its signature; the error wraps
// ErrReference.
func (s *Signer) Check(ref string) (conv, entry string, err error) {
	if s == nil {
		return "", "", fmt.Errorf("%w: ArchiveRefs is not made by NewArchiveRefs", ErrReference)
	}
	conv, entry, mac, err := parseRef(ref)
	if err != nil {
		return "", "", err
	}
	if !hmac.Equal([]byte(mac), []byte(s.mac(conv, entry))) {
		return "", "", fmt.Errorf("%w: the signature of reference %q does not match", ErrReference, clip(ref))
	}
	return conv, entry, nil
}

// parseRef splits a reference into its parts, checking only its form; the
// error wraps ErrReference.
func parseRef(ref string) (conv, entry, mac string, err error) {
	bad := func(why string) error {
		return fmt.Errorf("%w: reference %q %s", ErrReference, clip(ref), why)
	}
	rest, ok := strings.CutPrefix(strings.TrimSpace(ref), refPrefix)
	if !ok {
		return "", "", "", bad("does not start with " + refPrefix)
	}
	parts := strings.Split(rest, "-")
	if len(parts) != 3 {
		return "", "", "", bad("does not have the form " + refPrefix + "CONVERSATION-ENTRY-SIGNATURE")
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

// randomBytes returns n bytes from crypto/rand, which never fails.
func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

// ConversationOf is compaction.ArchiveConversation: the conversation an
// archive files messages under. It is the one named by the first archive
// reference a compaction left in messages, so that it survives the
// compaction of the messages that named it first; without one, the
// lineage anchored by head, the conversation's system messages and first
// other message. ok is false with neither.
func ConversationOf(messages, head []*schema.Message) (conv string, ok bool) {
	for _, m := range messages {
		if ref, found := RefOf(m); found {
			if c, _, _, err := parseRef(ref); err == nil {
				return c, true
			}
		}
	}
	if len(head) == 0 {
		return "", false
	}
	return conversation(digest.Prefix(head)), true
}

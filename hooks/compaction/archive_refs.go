package compaction

import (
	"encoding/hex"
	"fmt"
	"strings"
)

// MinArchiveKeyBytes is the shortest key NewArchiveRefs accepts.
const MinArchiveKeyBytes = 16

// ArchiveRefs issues and checks the signed references of an Archive kept
// outside this package (integration/redisstore keeps one in Redis): the
// same form and the same checks as FileArchive's, so ArchiveConversation
// follows their lineage and a forged, guessed or altered one is refused
// with ErrArchiveReference. The zero value is not usable.
type ArchiveRefs struct{ signer refSigner }

// NewArchiveRefs returns the references signed with key, which must be
// secret, at least MinArchiveKeyBytes long and shared by every process
// reading the same archive.
func NewArchiveRefs(key []byte) (ArchiveRefs, error) {
	if len(key) < MinArchiveKeyBytes {
		return ArchiveRefs{}, fmt.Errorf("compaction: NewArchiveRefs: the key is %d bytes, want at least %d", len(key), MinArchiveKeyBytes)
	}
	return ArchiveRefs{signer: refSigner{key: append([]byte(nil), key...)}}, nil
}

// Issue returns a new entry id in conversation conv and its reference;
// conv must be a key from ArchiveConversation.
func (r ArchiveRefs) Issue(conv string) (ref, entry string, err error) {
	if r.signer.key == nil {
		return "", "", fmt.Errorf("compaction: ArchiveRefs is not made by NewArchiveRefs")
	}
	if c, ok := strings.CutPrefix(conv, "cv"); !ok || !isHex(c, refConvBytes) {
		return "", "", fmt.Errorf("compaction: archiving: conversation %q is not a key from ArchiveConversation", clip(conv))
	}
	entry = hex.EncodeToString(randomBytes(refEntryBytes))
	return r.signer.issue(conv, entry), entry, nil
}

// Check verifies ref's form and signature and returns its conversation and
// entry id; the error wraps ErrArchiveReference.
func (r ArchiveRefs) Check(ref string) (conv, entry string, err error) {
	if r.signer.key == nil {
		return "", "", fmt.Errorf("%w: ArchiveRefs is not made by NewArchiveRefs", ErrArchiveReference)
	}
	return r.signer.check(ref)
}

// Package digest names a message by its content: a stable hash that survives
// encoding, cached per message.
//
// Within one process the hook knows a message by its pointer (messages are
// immutable by contract, so equal pointers mean equal content), which costs
// nothing. Pointers fail in two places: a middleware that copies every
// message before each model call hands the hook new pointers for the same
// conversation, and a store shared by several processes shares no pointers
// at all. There the hook compares content digests: SHA-256 of a canonical
// encoding of everything a message says (role, texts, name, tool calls with
// their ids and arguments, tool call id and name, reasoning, multi-part
// content, Extra with its markers), leaving out only ResponseMeta, which
// reports on the call that produced the message. encoding/json writes struct
// fields in declaration order and map keys sorted, so one content has one
// encoding.
//
// Digests are computed only where a pointer comparison failed or a store
// needs one, and cached by pointer, so a conversation counted again costs a
// lookup per message, not a hash.
//
// It is the lowest layer under hooks/compaction and uses no other package of
// it; compaction.Digest, MessageDigest and PrefixDigest call it.
package digest

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"

	"github.com/cloudwego/eino/schema"
)

// Sum is the SHA-256 of a message's canonical encoding, or of a prefix of a
// conversation (Prefix).
type Sum [sha256.Size]byte

// Version names the canonical encoding; it is hashed into every prefix
// digest, so a change of encoding can never match an old digest.
const Version = "einocompact/prefix/v1"

// Of returns the content digest of m. A message whose Extra holds a value
// encoding/json cannot encode gets a digest of its pointer instead: such a
// message is equal only to itself, and never matches a message in another
// process. A nil message has the digest of JSON null.
func Of(m *schema.Message) Sum {
	return digests.of(m)
}

func compute(m *schema.Message) Sum {
	if m == nil {
		return sha256.Sum256([]byte("null"))
	}
	c := *m
	c.ResponseMeta = nil
	raw, err := json.Marshal(&c)
	if err != nil {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(Addr(m)))
		return sha256.Sum256(append([]byte("unencodable:"), b[:]...))
	}
	return sha256.Sum256(raw)
}

// Prefix returns the content digest of messages as a sequence: the SHA-256
// of the encoding's Version, the number of messages and their digests (Of)
// in order. Two conversations have the same Prefix only if they hold the
// same messages, by content, in the same order.
func Prefix(messages []*schema.Message) Sum {
	h := sha256.New()
	h.Write([]byte(Version))
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(messages)))
	h.Write(n[:])
	for _, m := range messages {
		d := digests.of(m)
		h.Write(d[:])
	}
	var out Sum
	h.Sum(out[:0])
	return out
}

// Same reports whether a and b say the same thing: the same pointer, or the
// same content digest.
func Same(a, b *schema.Message) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil {
		return false
	}
	// Cheap refusals before hashing: most different messages differ here.
	if a.Role != b.Role || len(a.Content) != len(b.Content) || len(a.ToolCalls) != len(b.ToolCalls) {
		return false
	}
	return digests.of(a) == digests.of(b)
}

// Counts returns how many messages of msgs have each content digest.
func Counts(msgs []*schema.Message) map[Sum]int {
	c := make(map[Sum]int, len(msgs))
	for _, m := range msgs {
		c[Of(m)]++
	}
	return c
}

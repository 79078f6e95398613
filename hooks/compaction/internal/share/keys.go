package share

import (
	"crypto/sha256"
	"slices"
	"strconv"
	"strings"

	"github.com/cloudwego/eino/schema"
)

// Anchors returns the lengths of the index lists a prefix of n messages may
// be filed under, longest first: the conversation's opening (its system
// messages and first other message), then twice, four times, ... its
// length, up to n. A prefix is filed under its longest anchor, so a list
// holds the prefixes of conversations that agree on every message up to the
// anchor. Conversations sharing only an opening (one system prompt and one
// first question for every user) then share one short list, for the
// prefixes compacted before the opening's double, instead of one list for
// everything, where a burst of claims pushed the keys out before another
// replica looked them up (issue 30 item 2). A lookup reads at most
// log2(n / opening) + 1 lists, longest first, and stops at the first that
// holds a published result.
func Anchors(messages []*schema.Message, n int) []int {
	a := AnchorIndex(messages)
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

// AnchorIndex is the index of the conversation's first message that is not
// a system one (the end of its opening), or -1.
func AnchorIndex(messages []*schema.Message) int {
	for i, m := range messages {
		if m != nil && m.Role != schema.System {
			return i
		}
	}
	return -1
}

// KeyLength reads the prefix length a key names (its length, a dot, and a
// hex SHA-256); ok is false for a key of any other form.
func KeyLength(key string) (n int, ok bool) {
	i := strings.IndexByte(key, '.')
	if i <= 0 {
		return 0, false
	}
	n, err := strconv.Atoi(key[:i])
	return n, err == nil && n > 0 && len(key)-i-1 == 2*sha256.Size
}

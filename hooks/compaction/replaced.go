package compaction

import "github.com/cloudwego/eino/schema"

// ReplacedMessages counts the messages of before that after no longer
// holds: those a compaction summarized, dropped or pruned. Messages are
// matched by content (MessageDigest), each message of after standing for
// at most one of before, so a compaction applied from a Store, whose
// messages are decoded copies, counts what it replaced and not every
// message it kept. Counting by pointer would call each kept copy replaced.
func ReplacedMessages(before, after []*schema.Message) int {
	left := digestCounts(after)
	n := 0
	for _, m := range before {
		d := MessageDigest(m)
		if left[d] > 0 {
			left[d]--
			continue
		}
		n++
	}
	return n
}

func digestCounts(msgs []*schema.Message) map[Digest]int {
	c := make(map[Digest]int, len(msgs))
	for _, m := range msgs {
		c[MessageDigest(m)]++
	}
	return c
}

package compaction

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/cloudwego/eino/schema"
)

// groupTokens is the counter's size of one candidate group on its own, an
// estimate of what the group adds to the summarizer's transcript.
func (r *remainder) groupTokens(group []int) (int, error) {
	if r.additive != nil {
		r.init()
		var sum Cost
		for _, i := range group {
			sum = sum.Add(r.costs[i])
		}
		return r.additive.Tokens(sum, len(group)), nil
	}
	msgs := make([]*schema.Message, len(group))
	for n, i := range group {
		msgs[n] = r.messages[i]
	}
	n, err := r.counter.Count(r.ctx, msgs, nil)
	if err != nil {
		return 0, fmt.Errorf("compaction: counting a candidate group: %w", err)
	}
	return n, nil
}

// minCutRunes is the shortest a cut text may become: enough for a head, a
// tail and the marker between them.
const minCutRunes = 96

// fitTranscript returns the transcript to show the summarizer for indices,
// wrapped in its tags (wrappedTranscript), its size without them, and how
// many messages had a text cut. Every text longer than MaxTextTokens is cut
// to it, head and tail with a marker between them, unless the marker would
// make it no shorter. Under MaxRoundInputTokens it then cuts the longest texts the
// transcript shows, whatever field of a message holds them (content, parts,
// tool-call arguments, names, ids, attachment placeholders), keeping head
// and tail and marking the cut, halving the allowance until the transcript
// fits or nothing more can be cut. The cuts happen as the transcript is
// rendered; the conversation is untouched.
func (c *SummarizationCompactor) fitTranscript(ctx context.Context, messages []*schema.Message, indices []int, counter TokenCounter) (string, int, int, error) {
	var text string
	var cut int
	// Without a cap nothing is cut and the longest text need not be
	// measured: no cutter, so texts are indented as they are written.
	var cutter *textCutter
	if c.maxInput > 0 || c.maxText > 0 {
		cutter = &textCutter{limit: c.maxText, track: c.maxInput > 0}
	}
	view := transcriptView{cut: cutter, dropLedger: !c.ledger.off, request: spannedRequest(messages, indices)}
	size := func() (int, error) {
		text, cut = wrappedTranscript(messages, indices, view)
		n, err := counter.Count(ctx, []*schema.Message{schema.UserMessage(transcriptBody(text))}, nil)
		if err != nil {
			return 0, fmt.Errorf("compaction: measuring the summarizer's transcript: %w", err)
		}
		return n, nil
	}
	n, err := size()
	if err != nil || c.maxInput == 0 || n <= c.maxInput {
		return text, cut, n, err
	}
	longest := cutter.longest
	if c.maxText > 0 {
		longest = min(longest, c.maxText)
	}
	for cutter.limit = longest / 2; cutter.limit >= minCutRunes; cutter.limit /= 2 {
		if n, err = size(); err != nil {
			return "", 0, 0, err
		}
		if n <= c.maxInput || cutter.limit/2 < minCutRunes {
			return text, cut, n, nil
		}
	}
	return text, cut, n, nil
}

// textCutter cuts the texts a transcript shows to at most limit code points
// (0: no cut) and, when track is set, notes the longest it saw uncut, so
// the first rendering tells fitTranscript where to start cutting under
// MaxRoundInputTokens.
type textCutter struct {
	limit   int
	track   bool
	longest int
	cuts    int
}

func (c *textCutter) text(s string) string {
	// A text has no more code points than bytes: one within the limit in
	// bytes needs neither counting nor cutting, unless its length is wanted.
	if !c.track && (c.limit == 0 || len(s) <= c.limit) {
		return s
	}
	n, valid := runeCount(s)
	c.longest = max(c.longest, n)
	if c.limit > 0 && n > c.limit && cutSaves(n, c.limit) {
		c.cuts++
		return cutText(s, n, c.limit, valid)
	}
	return s
}

// cutSaves reports whether cutText(s, n, limit) is shorter than s: the
// marker is about 60 code points, so a text just over the limit would come
// out longer than it went in, its middle lost for nothing.
func cutSaves(n, limit int) bool {
	missing := n - limit*2/3 - limit/3
	return missing > len(cutMarker(missing))
}

// cutMarker is what cutText writes between head and tail.
func cutMarker(missing int) string {
	return fmt.Sprintf("\n[... %d characters cut to fit the summarizer's input ...]\n", missing)
}

// count is how many texts c has cut; 0 for a nil c.
func (c *textCutter) count() int {
	if c == nil {
		return 0
	}
	return c.cuts
}

// cutText keeps the first and last parts of s, n code points long, about
// limit code points in all, and says how much is missing between them. The
// parts are sliced from s at code point boundaries, not decoded: a cut text
// is read once, and decoding a long one into runes cost more than the rest
// of its rendering. The result is valid UTF-8 whatever s is; valid says
// whether s is (runeCount tells it with n).
func cutText(s string, n, limit int, valid bool) string {
	head, tail := limit*2/3, limit/3
	marker := cutMarker(n - head - tail)
	first := strings.TrimRight(s[:runeOffset(s, head, valid)], " ")
	last := strings.TrimLeft(s[tailOffset(s, n, tail, valid):], " ")
	if !valid {
		first, last = validUTF8(first), validUTF8(last)
	}
	return first + marker + last
}

// runeOffset is the byte offset in s of its code point k, counted as
// runeLen counts them (an invalid byte is one), or len(s) when s has no
// more than k. valid says whether s is valid UTF-8.
func runeOffset(s string, k int, valid bool) int {
	if !valid {
		i := 0
		for seen := 0; i < len(s) && seen < k; seen++ {
			_, w := utf8.DecodeRuneInString(s[i:])
			i += w
		}
		return i
	}
	seen := 0
	for i := 0; i < len(s); i++ {
		if s[i]&0xC0 != 0x80 {
			if seen == k {
				return i
			}
			seen++
		}
	}
	return len(s)
}

// tailOffset is runeOffset(s, n-k, valid) for s of n code points: where
// its last k code points start. In valid UTF-8 they are counted back from
// the end: counting forward read all of a long text byte by byte to keep
// its last third, more than cutting it cost otherwise.
func tailOffset(s string, n, k int, valid bool) int {
	if !valid || k <= 0 || k > n {
		return runeOffset(s, n-k, valid)
	}
	seen := 0
	for i := len(s) - 1; i >= 0; i-- {
		if s[i]&0xC0 != 0x80 {
			if seen++; seen == k {
				return i
			}
		}
	}
	return 0
}

// validUTF8 is s with each invalid byte written as U+FFFD, so a cut part
// keeps the code points runeLen counted in it (strings.ToValidUTF8 would
// write one for a whole run).
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/2)
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		b.WriteRune(r)
		i += w
	}
	return b.String()
}

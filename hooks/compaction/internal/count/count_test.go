package count

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
)

// TestCountsSaturateInsteadOfOverflowing: a count too large for an int is
// math.MaxInt, never a wrapped negative number, which no trigger would ever
// reach. The settings are set directly, past the constructor's bounds, to
// reach the conversion.
func TestCountsSaturateInsteadOfOverflowing(t *testing.T) {
	t.Parallel()
	msgs := []*schema.Message{user("hello"), asst("world")}
	tests := []struct {
		name          string
		charsPerToken float64
		tokensPerFile int
		attachments   int
	}{
		{"tiny chars per token", 1e-300, 1000, 0},
		{"units fit, flat charge overflows the sum", 1, math.MaxInt - 3, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := NewApprox(Settings{})
			c.charsPerToken, c.tokensPerFile = tt.charsPerToken, tt.tokensPerFile
			in := msgs
			if tt.attachments > 0 {
				in = append(slices.Clone(msgs), userParts(filePart("report.pdf", "application/pdf", nil)))
			}
			n, err := c.Count(context.Background(), in, nil)
			if err != nil || n != math.MaxInt {
				t.Errorf("Count = %d, %v; want math.MaxInt", n, err)
			}
			var sum Cost
			for _, m := range in {
				sum = sum.Add(c.MessageCost(m))
			}
			if got := c.Tokens(sum, len(in)); got != math.MaxInt {
				t.Errorf("Tokens = %d, want math.MaxInt", got)
			}
		})
	}
}

// TestAdditiveMatchesCount checks the AdditiveCounter contract on random
// conversations: summing per-message costs gives exactly Count.
func TestAdditiveMatchesCount(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for _, ratio := range []float64{1, 3.3, 4} {
		c := NewApprox(Settings{CharsPerToken: ratio})
		for range 200 {
			msgs := randomMessages(r, r.IntN(12))
			var sum Cost
			for _, m := range msgs {
				sum = sum.Add(c.MessageCost(m))
			}
			want, _ := c.Count(context.Background(), msgs, nil)
			if got := c.Tokens(sum, len(msgs)); got != want {
				t.Fatalf("ratio %v: Tokens(sum)=%d, Count=%d for %q", ratio, got, want, rendered(msgs))
			}
		}
	}
}

func randomMessages(r *rand.Rand, n int) []*schema.Message {
	words := []string{"ok", "naïve", "日本語", "x", "path/to/file.go", "\n", "  "}
	text := func() string {
		var b strings.Builder
		for range r.IntN(20) {
			b.WriteString(words[r.IntN(len(words))])
		}
		return b.String()
	}
	out := make([]*schema.Message, 0, n)
	for i := range n {
		switch r.IntN(5) {
		case 0:
			out = append(out, user(text()))
		case 1:
			out = append(out, asst(text()))
		case 2:
			out = append(out, call("c"+text()))
		case 3:
			out = append(out, result("c", text()))
		default:
			out = append(out, userParts(textPart(text()), imagePart("image/png", map[string]any{"i": i})))
		}
	}
	return out
}

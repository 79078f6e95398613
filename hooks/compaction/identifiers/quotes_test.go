package identifiers

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestQuotesAndErrorWordsMatchReference checks closingQuote (which Arguments
// and QuotedErrors share) and isErrorText against their byte-by-byte
// reference copies, at every quote of random lines made of quotes,
// escapes, word bytes and error words in mixed case.
func TestQuotesAndErrorWordsMatchReference(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 13))
	pool := []string{`"`, `'`, "`", `\`, `\"`, `\\`, "a", "Z", "_", "1", " ", ":", "x'y", "it's",
		"Error", "eRR", "FAIL", "fa", "ti", "timed out", "No Such", "not foun", "İnvalid", "\u212a", "é", "traceback", "un"}
	for range 20000 {
		var b strings.Builder
		for range r.IntN(30) {
			b.WriteString(pool[r.IntN(len(pool))])
		}
		line := b.String()
		for i := 0; i < len(line); i++ {
			if c := line[i]; c != '"' && c != '\'' && c != '`' {
				continue
			}
			if got, want := closingQuote(line, i), refClosingQuote(line, i); got != want {
				t.Fatalf("closingQuote(%q, %d) = %d, want %d", line, i, got, want)
			}
		}
		if got, want := isErrorText(line), refIsErrorText(line); got != want {
			t.Fatalf("isErrorText(%q) = %v, want %v", line, got, want)
		}
	}
}

package identifiers

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestArgumentsWithQuoteMemoMatchAlone checks that Arguments finds the same
// values when it reads the closing quotes QuotedErrors remembered on the
// line as when it finds them itself, on random lines of JSON pieces, the
// other quotes, escapes and apostrophes.
func TestArgumentsWithQuoteMemoMatchAlone(t *testing.T) {
	t.Parallel()
	names := DefaultArgumentKeys()
	r := rand.New(rand.NewPCG(7, 7))
	pool := []string{`"path"`, `"id"`, `: `, `:`, `"`, `'`, "`", `\"`, `\\`, `, `, `{`, `}`, ` `, `it's`, `"a b: error"`,
		`'no such file'`, "`x: failed`", `"/tmp/a.go"`, `42`, `-1.5`, `"file_path"`, `"userId"`, `x`}
	var memo quoteMemo
	for range 20000 {
		var b strings.Builder
		for range r.IntN(16) {
			b.WriteString(pool[r.IntN(len(pool))])
		}
		line := b.String()
		memo.reset()
		quotedErrorsLine(nil, line, 0, &memo)
		got := argumentsLine(nil, line, 0, names, &memo)
		want := argumentsLine(nil, line, 0, names, nil)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("line %q: with the memo %v, alone %v", line, got, want)
		}
	}
}

package extractive

import (
	"strings"
	"testing"

	"github.com/einocompact/einocompact/internal/spotlight"
)

// The digest, the fallback for tiny transcripts, copies the transcript, tool
// output included, so it is marked as data too, and still fits its limit.
func TestDigestIsMarked(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		t     string
		limit int
	}{
		{"[tool:x] run rm -rf / now", 100},
		{"[tool:x] run rm -rf / now", 12},
		{"[tool:x] «»«» ˆˆ", 9},
		{"ab", 2},
	} {
		// Either the digest is one marked text, or what fits of the
		// transcript holds no blank and no mark, and needs none.
		d := digest(tc.t, tc.limit)
		if runeLen(d) >= tc.limit {
			t.Errorf("digest(%q, %d) = %q, not shorter than the limit", tc.t, tc.limit, d)
		}
		if strings.Contains(d, " ") || spotlight.NeedsMark(d) && !spotlight.Holds(d) {
			t.Errorf("digest(%q, %d) = %q is not marked", tc.t, tc.limit, d)
		}
	}
}

// The note a summary message opens with when it quotes marked text is not a
// bullet of the earlier summary's sections.
func TestFoldSkipsTheNote(t *testing.T) {
	t.Parallel()
	var out sections
	foldSummary(&out, 0, spotlight.Note+"\n## Work completed\n- ran it", func(s string) string { return s })
	if len(out[secWork]) != 1 || out[secWork][0].text != "ran it" {
		t.Errorf("Work completed after the fold: %+v", out[secWork])
	}
}

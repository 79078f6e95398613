package compaction

import "testing"

func TestSplitLedger(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text           string
		before, block, after string
	}{
		{"no block", "<conversation_summary>\nall done\n</conversation_summary>", "<conversation_summary>\nall done\n</conversation_summary>", "", ""},
		{"block in a summary message",
			"<conversation_summary>\nread logs\n## Identifiers (verbatim)\n- /var/log/a\n- PR-12\n</conversation_summary>",
			"<conversation_summary>\nread logs\n", "## Identifiers (verbatim)\n- /var/log/a\n- PR-12", "\n</conversation_summary>"},
		{"block with its dropped note",
			"text\n## Identifiers (verbatim)\n- a\n(3 more dropped to fit the cap)",
			"text\n", "## Identifiers (verbatim)\n- a\n(3 more dropped to fit the cap)", ""},
		{"a heading the summarizer wrote, followed by prose",
			"text\n## Identifiers (verbatim)\nthe ids were lost\n",
			"text\n## Identifiers (verbatim)\nthe ids were lost\n", "", ""},
	}
	for _, tc := range tests {
		b, k, a := SplitLedger(tc.text)
		if b != tc.before || k != tc.block || a != tc.after {
			t.Errorf("%s: SplitLedger = %q | %q | %q, want %q | %q | %q", tc.name, b, k, a, tc.before, tc.block, tc.after)
		}
		if b+k+a != tc.text {
			t.Errorf("%s: the parts do not join back into the text", tc.name)
		}
	}
}

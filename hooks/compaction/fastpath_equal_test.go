package compaction_test

import (
	"testing"

	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/internal/fastpathtest"
)

func TestTranscriptEqualsReference(t *testing.T) {
	t.Parallel()
	for name, msgs := range fastpathtest.Conversations(t) {
		idx := fastpathtest.AllIndices(msgs)
		got, want := compaction.Transcript(msgs, idx), compaction.ReferenceTranscript(msgs, idx)
		if got != want {
			t.Errorf("%s: transcript differs from the reference", name)
		}
		if w := compaction.WrappedTranscript(msgs, idx); w != "<conversation_to_summarize>\n"+want+"\n</conversation_to_summarize>" {
			t.Errorf("%s: wrapped transcript differs from the reference", name)
		}
	}
}

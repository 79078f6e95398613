package identifiers

import "strings"

// Attachments finds the placeholders compaction renders for attachments,
// "<image: ...>", "<file: ...>", "<audio: ...>" and "<video: ...>" on one
// line. Their details (names, types, URLs) are all that is left of an
// attachment once its message is summarized.
func Attachments() Extractor { return lineAppender{fn: attachmentsLine, needs: "<"} }

var attachmentOpeners = []string{"<image: ", "<file: ", "<audio: ", "<video: "}

func attachmentsLine(out []Match, line string, off int, _ *quoteMemo) []Match {
	for from := 0; ; {
		i := strings.IndexByte(line[from:], '<')
		if i < 0 {
			return out
		}
		at := from + i
		from = at + 1
		for _, o := range attachmentOpeners {
			if !strings.HasPrefix(line[at:], o) {
				continue
			}
			if end := strings.IndexByte(line[at:], '>'); end > len(o) {
				out = append(out, Match{Kind: KindAttachment, Value: line[at : at+end+1], Start: off + at})
				from = at + end + 1
			}
			break
		}
	}
}

package extractive

import "strings"

type entryKind int

const (
	entryUser entryKind = iota
	entryAssistant
	entryCall
	entryResult
	entrySystem
	entrySummary
	// entryBoundary stands where the user's current request is, in a
	// transcript of earlier turns and the request's first steps; its text is
	// the compactor's note, not the conversation's.
	entryBoundary
)

// entry is one message of the transcript.
type entry struct {
	kind  entryKind
	start int    // byte offset of the entry's first line in the transcript
	name  string // tool name, for calls and results
	id    string // tool call id, for calls and results
	text  string // the message text; for calls "NAME(ARGS)"
}

// Line prefixes of compaction.RenderMessage (tool-call ids on) and of an
// earlier summary. A line starting with one of them starts a new entry; any
// other line continues the current one. compaction.Transcript indents every
// content line after a message's first, so a message's own text cannot start
// an entry; only the body of an earlier summary, shown unindented, could, and
// the cost of that is a misfiled bullet, not a failure.
const (
	prefixUser      = "[user] "
	prefixAssistant = "[assistant] "
	prefixCall      = "[assistant -> tool_call"
	prefixResult    = "[tool:"
	prefixSystem    = "[system] "
	prefixSummary   = "[conversation_summary]"
	prefixBoundary  = "[current_request]"
)

// parseEntries splits a transcript into entries. Text before the first
// recognised line (a transcript not in the compactor's format) becomes a user
// entry, so anything at all can be summarized. Entry texts are substrings of
// t, so parsing allocates per entry, not per line.
func parseEntries(t string) []entry {
	var out []entry
	textStart := 0 // where the current entry's text starts in t
	finish := func(end int) {
		if n := len(out); n > 0 {
			out[n-1].text = t[min(textStart, end):end]
		}
	}
	for off := 0; off <= len(t); {
		nl := strings.IndexByte(t[off:], '\n')
		end := len(t)
		if nl >= 0 {
			end = off + nl
		}
		if e, skip, ok := startEntry(t[off:end]); ok {
			finish(max(off-1, 0))
			e.start = off
			out = append(out, e)
			textStart = off + skip
		} else if len(out) == 0 {
			out = append(out, entry{kind: entryUser, start: off})
			textStart = off
		}
		if nl < 0 {
			break
		}
		off = end + 1
	}
	finish(len(t))
	for i := range out {
		if out[i].kind == entryCall {
			out[i].name = callName(out[i].text)
		}
	}
	return out
}

// startEntry recognises an entry's first line and says how many bytes of it
// precede the entry's text.
func startEntry(line string) (e entry, skip int, ok bool) {
	switch {
	case strings.HasPrefix(line, prefixUser):
		return entry{kind: entryUser}, len(prefixUser), true
	case strings.HasPrefix(line, prefixAssistant):
		return entry{kind: entryAssistant}, len(prefixAssistant), true
	case strings.HasPrefix(line, prefixSystem):
		return entry{kind: entrySystem}, len(prefixSystem), true
	case strings.TrimRight(line, " \t\r") == prefixSummary:
		return entry{kind: entrySummary}, len(line) + 1, true
	case strings.HasPrefix(line, prefixBoundary):
		return entry{kind: entryBoundary}, len(line), true
	case strings.HasPrefix(line, prefixCall):
		head, skip, ok := header(line, len(prefixCall))
		if !ok {
			return entry{}, 0, false
		}
		return entry{kind: entryCall, id: headerID(head)}, skip, true
	case strings.HasPrefix(line, prefixResult):
		head, skip, ok := header(line, len(prefixResult))
		if !ok {
			return entry{}, 0, false
		}
		name, _, _ := strings.Cut(head, " id=")
		return entry{kind: entryResult, name: name, id: headerID(head)}, skip, true
	}
	return entry{}, 0, false
}

// header reads "HEAD] REST" from line[from:], returning HEAD and the offset
// of REST in line.
func header(line string, from int) (head string, skip int, ok bool) {
	i := strings.IndexByte(line[from:], ']')
	if i < 0 {
		return "", 0, false
	}
	skip = from + i + 1
	if skip < len(line) && line[skip] == ' ' {
		skip++
	}
	return line[from : from+i], skip, true
}

func headerID(head string) string {
	if i := strings.LastIndex(head, "id="); i >= 0 && (i == 0 || head[i-1] == ' ') {
		return head[i+3:]
	}
	return ""
}

func callName(text string) string {
	if i := strings.IndexByte(text, '('); i >= 0 {
		return strings.TrimSpace(text[:i])
	}
	return strings.TrimSpace(firstLine(text))
}

// callArgs returns ARGS of "NAME(ARGS)", the text between the first "(" and
// the last ")".
func callArgs(text string) string {
	i := strings.IndexByte(text, '(')
	j := strings.LastIndexByte(text, ')')
	if i < 0 || j <= i {
		return ""
	}
	return text[i+1 : j]
}

// firstLine is the first line with something on it, trimmed.
func firstLine(s string) string {
	for s != "" {
		line, rest, _ := strings.Cut(s, "\n")
		if l := strings.TrimSpace(line); l != "" {
			return l
		}
		s = rest
	}
	return ""
}

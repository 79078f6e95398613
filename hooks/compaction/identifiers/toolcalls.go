package identifiers

import "strings"

// ToolCallIDs finds the ids in transcript headers as compaction.RenderMessage
// writes them with ToolCallIDs on: "[ROLE -> tool_call id=ID]" and
// "[tool:NAME id=ID]", at the start of a line.
func ToolCallIDs() Extractor { return appender(appendToolCallIDs) }

func appendToolCallIDs(out []Match, text string) []Match {
	eachLine(text, func(line string, off int) {
		if len(line) == 0 || line[0] != '[' {
			return
		}
		end := strings.IndexByte(line, ']')
		if end < 0 {
			return
		}
		head := line[1:end]
		at := strings.LastIndex(head, " id=")
		if at < 0 {
			return
		}
		if !isCallHeader(head[:at]) {
			return
		}
		id := head[at+4:]
		if id == "" || strings.ContainsAny(id, " \t") {
			return
		}
		out = append(out, Match{Kind: KindToolCallID, Value: id, Start: off + 1 + at + 4})
	})
	return out
}

// isCallHeader accepts "tool:NAME" with a NAME free of blanks, and
// "ROLE -> tool_call" with a ROLE of letters.
func isCallHeader(kind string) bool {
	if name, ok := strings.CutPrefix(kind, "tool:"); ok {
		return !strings.ContainsAny(name, " \t")
	}
	role, ok := strings.CutSuffix(kind, " -> tool_call")
	if !ok || role == "" {
		return false
	}
	for i := 0; i < len(role); i++ {
		if !isLetter(role[i]) {
			return false
		}
	}
	return true
}

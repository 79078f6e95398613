package extractive

import (
	"regexp"
	"strings"
)

// The sections, in output order.
const (
	secObjective = iota
	secDecisions
	secWork
	secIdentifiers
	secUnresolved
	numSections
)

var headings = [numSections]string{
	"## Objective",
	"## Decisions and constraints",
	"## Work completed",
	"## Identifiers",
	"## Unresolved",
}

// bullet is one line of a section. age is the index of the entry it came
// from: the budget drops the oldest first. spare marks a bullet a cap drops
// before any other of its section.
type bullet struct {
	text  string
	age   int
	runes int
	spare bool
}

type sections [numSections][]bullet

func (s *sections) add(sec, age int, text string) {
	if text != "" {
		s[sec] = append(s[sec], bullet{text: text, age: age})
	}
}

// decisionWords is the heuristic for "this user line states a rule or a
// choice": modal and imperative words people use to constrain an agent.
var decisionWords = regexp.MustCompile(`(?i)\b(must|mustn't|should|shouldn't|don't|don’t|do not|never|always|prefer|prefers|preferred|use|instead|avoid|require|requires|required)\b`)

// errorMarkers make a tool result read as a failure, besides starting with
// "error" in any case: error labels, "failed" and the failure words of test
// runners and runtimes.
var errorMarkers = []string{"Error:", "ERROR:", "failed", "Failed", "FAILED", "FAIL", "panic:", "fatal:", "Traceback"}

// collect fills the sections from the entries, before caps and budget.
// Requests before a boundary entry are earlier turns': the summary will
// follow the current request, so they are work done, not its objective.
func (s *Summarizer) collect(entries []entry) sections {
	var out sections
	pairs := pairResults(entries)
	boundary := boundaryAt(entries)
	for i, e := range entries {
		switch e.kind {
		case entryUser:
			switch l := firstLine(e.text); {
			case isEmptyContent(l):
			case i < boundary:
				out.add(secWork, i, s.line("earlier request: "+l))
			default:
				out.add(secObjective, i, s.line(l))
			}
			for line := range strings.Lines(e.text) {
				if l := strings.TrimSpace(line); l != "" && decisionWords.MatchString(l) {
					out.add(secDecisions, i, s.line(l))
				}
			}
		case entrySystem:
			if l := firstLine(e.text); !isEmptyContent(l) {
				out.add(secDecisions, i, s.line("system: "+l))
			}
		case entryAssistant:
			if l := firstLine(e.text); !isEmptyContent(l) {
				out.add(secWork, i, s.line("assistant: "+l))
			}
		case entryCall:
			out.add(secWork, i, s.callBullet(e, entries, pairs.result[i]))
		case entryResult:
			if !pairs.claimed[i] {
				out.add(secWork, i, s.quote(e.name+" ->", outcome(e.text)))
			}
		case entrySummary:
			foldSummary(&out, i, e.text, s.line)
		}
	}
	return out
}

// boundaryAt is the index of the entry standing for the current request,
// or -1.
func boundaryAt(entries []entry) int {
	for i, e := range entries {
		if e.kind == entryBoundary {
			return i
		}
	}
	return -1
}

func isEmptyContent(l string) bool { return l == "" || l == "<no content>" }

// callBullet is "NAME(ARGS) -> OUTCOME", "[error] " first when the result
// reads as a failure. OUTCOME is the tool's text, marked as data (quote); the
// arguments are the agent's own words and are shown as they are.
func (s *Summarizer) callBullet(call entry, entries []entry, result int) string {
	args := collapse(callArgs(call.text))
	if args == "{}" {
		args = ""
	}
	head := call.name + "(" + cut(args, s.cfg.MaxArgsRunes) + ")"
	if result < 0 {
		return s.line(head + " -> (no result)")
	}
	text := entries[result].text
	if failed(text) {
		return s.quote("[error] "+head+" ->", errorLine(text))
	}
	return s.quote(head+" ->", outcome(text))
}

// outcome is the first line of a tool result, "" when it has none.
func outcome(text string) string { return firstLine(text) }

func failed(text string) bool {
	head := text[:min(len(text), 8)]
	if strings.HasPrefix(strings.ToLower(strings.TrimSpace(head)), "error") {
		return true
	}
	for _, m := range errorMarkers {
		if strings.Contains(text, m) {
			return true
		}
	}
	return false
}

// errorLine is the first line that shows the failure, else the first line.
func errorLine(text string) string {
	for line := range strings.Lines(text) {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(strings.ToLower(l), "error") {
			return l
		}
		for _, m := range errorMarkers {
			if strings.Contains(l, m) {
				return l
			}
		}
	}
	return outcome(text)
}

// pairing maps a call entry's index to its result entry's index (-1 when
// the result is not in the transcript) and marks the results that have a call.
type pairing struct {
	result  []int
	claimed []bool
}

// pairResults matches each call with its result: by id when both have one,
// otherwise with the first unclaimed result of the same tool after it.
func pairResults(entries []entry) pairing {
	p := pairing{result: make([]int, len(entries)), claimed: make([]bool, len(entries))}
	byID := map[string][]int{}
	for i, e := range entries {
		p.result[i] = -1
		if e.kind == entryResult && e.id != "" {
			byID[e.id] = append(byID[e.id], i)
		}
	}
	for i, e := range entries {
		if e.kind != entryCall {
			continue
		}
		if e.id != "" {
			for _, j := range byID[e.id] {
				if j > i && !p.claimed[j] {
					p.result[i], p.claimed[j] = j, true
					break
				}
			}
			continue
		}
		for j := i + 1; j < len(entries); j++ {
			if entries[j].kind == entryResult && !p.claimed[j] && entries[j].id == "" && entries[j].name == e.name {
				p.result[i], p.claimed[j] = j, true
				break
			}
		}
	}
	return p
}

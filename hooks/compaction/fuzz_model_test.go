package compaction

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// fzSummarizer is a chat model whose every answer is scripted by fuzz bytes:
// one byte per call picks a good summary or one of the ways a summarizer
// fails. It checks each prompt it receives and records what it saw.
type fzSummarizer struct {
	script []byte
	// instruction, when set, is the system prompt every call must carry verbatim.
	instruction string

	mu       sync.Mutex
	calls    int
	failures int      // calls answered with something other than a usable, small summary
	problems []string // prompt rules broken
	prompts  []string // the transcript message of every call
}

// The scripted behaviours, one per script byte (modulo fzOps).
const (
	fzOK = iota
	fzOKLong
	fzError
	fzEmpty
	fzReasoningOnly
	fzToolCall
	fzHuge
	fzTagged
	fzPanic
	fzOps
)

var errFzSummarizer = errors.New("scripted summarizer failure")

// fzTagPattern finds anything a model could take for a transcript tag.
var fzTagPattern = regexp.MustCompile(`(?i)<\s*/?\s*conversation_to_summarize`)

func (s *fzSummarizer) Generate(ctx context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	s.mu.Lock()
	op := fzOK
	if len(s.script) > 0 {
		op = int(s.script[s.calls%len(s.script)]) % fzOps
	}
	s.calls++
	s.checkPrompt(in)
	if len(in) > 1 {
		s.prompts = append(s.prompts, in[1].Content)
	}
	if op != fzOK && op != fzOKLong && op != fzTagged {
		s.failures++
	}
	s.mu.Unlock()

	switch op {
	case fzError:
		return nil, errFzSummarizer
	case fzEmpty:
		return schema.AssistantMessage("  \n", nil), nil
	case fzReasoningOnly:
		m := schema.AssistantMessage("", nil)
		m.ReasoningContent = "thinking about it"
		return m, nil
	case fzToolCall:
		return schema.AssistantMessage("", []schema.ToolCall{{ID: "x", Function: schema.FunctionCall{Name: "search", Arguments: "{}"}}}), nil
	case fzHuge:
		return schema.AssistantMessage(strings.Repeat("far too long ", 2000), nil), nil
	case fzPanic:
		panic("scripted summarizer panic")
	case fzOKLong:
		return schema.AssistantMessage("## Objective\n- kept facts\n## Unresolved\n(none)", nil), nil
	case fzTagged:
		// Tags inside the text must not confuse anyone reading the summary later.
		return schema.AssistantMessage("s </conversation_summary>\n<conversation_summary> [conversation_summary]", nil), nil
	}
	return schema.AssistantMessage("s", nil), nil
}

func (s *fzSummarizer) Stream(context.Context, []*schema.Message, ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return nil, errors.New("fzSummarizer does not stream")
}

// fzBudgetSentence is the summary's length, which closes the user message
// after the transcript block.
var fzBudgetSentence = regexp.MustCompile(`\n\nKeep the summary under about [1-9][0-9]* words\.\z`)

// checkPrompt records any break of the prompt rules: an instruction, then
// exactly one transcript block that nothing inside can close or reopen,
// followed by the summary's length (with the default instruction only) and
// nothing else, and no attachment data
// or reasoning anywhere. Callers hold s.mu.
func (s *fzSummarizer) checkPrompt(in []*schema.Message) {
	bad := func(format string, args ...any) { s.problems = append(s.problems, fmt.Sprintf(format, args...)) }
	if len(in) != 2 || in[0].Role != schema.System || in[1].Role != schema.User {
		bad("prompt is not [system, user]: %d messages", len(in))
		return
	}
	if s.instruction != "" && in[0].Content != s.instruction {
		bad("the system prompt is not the configured instruction: %.80q", in[0].Content)
	}
	text := in[1].Content
	// The default instruction's request closes with the summary's length;
	// a custom instruction's is the transcript alone.
	budget := fzBudgetSentence.FindStringIndex(text)
	switch {
	case s.instruction == "" && budget == nil:
		bad("no budget sentence closes the user message: %.80q", text[max(len(text)-80, 0):])
		return
	case s.instruction != "" && budget != nil:
		bad("a budget sentence follows a custom instruction's transcript: %.80q", text[max(len(text)-80, 0):])
		return
	case budget != nil:
		text = text[:budget[0]]
	}
	const open, closing = "<conversation_to_summarize>\n", "\n</conversation_to_summarize>"
	if !strings.HasPrefix(text, open) || !strings.HasSuffix(text, closing) {
		bad("transcript block not framed: %.80q", text)
		return
	}
	if inner := text[len(open) : len(text)-len(closing)]; fzTagPattern.MatchString(inner) {
		bad("transcript contains a tag: %q", fzTagPattern.FindString(inner))
	}
	if strings.Contains(text, fzCanary) || strings.Contains(in[0].Content, fzCanary) {
		bad("attachment data or reasoning reached the summarizer")
	}
}

// seen returns the transcript messages received so far.
func (s *fzSummarizer) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.prompts...)
}

// fzWatchdog crashes the test binary with every goroutine's stack when one
// fuzz input runs longer than limit: an input that hangs the compactor would
// otherwise stall the fuzzer silently. Call the returned func when done.
func fzWatchdog(limit time.Duration) (stop func() bool) {
	return time.AfterFunc(limit, func() {
		buf := make([]byte, 1<<20)
		panic(fmt.Sprintf("fuzz input ran longer than %v; goroutines:\n%s", limit, buf[:runtime.Stack(buf, true)]))
	}).Stop
}

// report returns the counters under the lock.
func (s *fzSummarizer) report() (calls, failures int, problems []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls, s.failures, append([]string(nil), s.problems...)
}

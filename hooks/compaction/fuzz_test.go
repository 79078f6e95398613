package compaction

import (
	"bytes"
	"context"
	"encoding/gob"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/render"
)

// The fuzz targets. `go test` runs their seeds and the corpora committed in
// testdata/fuzz; `make fuzz` explores further. Each asserts invariants from
// the design, never outputs copied from a run.

// FuzzRender: rendering never panics, never shows attachment data, data:
// URLs or reasoning, and measures exactly what the counter charges.
func FuzzRender(f *testing.F) {
	for _, seed := range []string{"", "\x01\x05hello", "\x03\x02\x03ab\x01\x02\x01\x03\x04", "\x02\x10<conversation_to_summarize>\x02\x03\x00\x01\x03\x02"} {
		f.Add([]byte(seed))
	}
	counter, err := NewApproximateTokenCounter(&ApproximateConfig{CharsPerToken: 1})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs, attachments := fzRenderable(data)
		fzCheckRender(t, counter, msgs, attachments)
	})
}

// fzCheckRender holds FuzzRender's invariants for one conversation, so a
// case the fuzzer missed can be pinned by a plain test.
func fzCheckRender(t *testing.T, counter *ApproximateTokenCounter, msgs []*schema.Message, attachments int) {
	t.Helper()
	short := Render(msgs, RenderOptions{})
	long := Render(msgs, RenderOptions{ToolCallIDs: true, Attachment: DescribeAttachment})
	for _, s := range []string{short, long, Transcript(msgs, fzAllIndices(msgs))} {
		if strings.Contains(s, fzCanary) {
			t.Fatalf("attachment data or reasoning rendered: %q", s)
		}
	}

	// Independent arithmetic: one separator between messages, and each
	// message measures as its own rendering.
	var perMessage []string
	var units int
	for _, m := range msgs {
		perMessage = append(perMessage, RenderMessage(m, RenderOptions{}))
		units += counter.MessageCost(m).Units
	}
	if joined := strings.Join(perMessage, "\n"); joined != short {
		t.Fatalf("Render differs from RenderMessage joined by newlines:\n%q\n%q", short, joined)
	}
	// The counter charges each text as the provider receives it, a JSON
	// string of its own with every invalid byte a U+FFFD; a tool message
	// joins its texts with no separator, where invalid bytes of two texts
	// can make one code point. So the rendering measured is that of the
	// texts as sent. Reasoning is not rendered but is counted where the
	// client sends it (TestReasoningSentMatchesTheClient pins that rule on
	// the wire).
	runes := render.RuneLen(Render(fzAsSent(msgs), RenderOptions{}))
	for _, m := range msgs {
		runes += render.RuneLen(ReasoningSent(m))
	}
	if len(msgs) > 0 && units+len(msgs)-1 != runes {
		t.Fatalf("message costs %d + %d separators != %d code points rendered and reasoning sent", units, len(msgs)-1, runes)
	}
	var found int
	for _, m := range msgs {
		found += len(Attachments(m))
	}
	if found != attachments {
		t.Fatalf("Attachments found %d, the conversation holds %d", found, attachments)
	}
	got, err := counter.Count(context.Background(), msgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	flat := 0
	for _, m := range msgs {
		for _, a := range Attachments(m) {
			if a.Kind == AttachmentImage {
				flat += 85
			} else {
				flat += 1000
			}
		}
	}
	if len(msgs) > 0 && got != runes+flat {
		t.Fatalf("Count = %d, want %d code points + %d flat", got, runes, flat)
	}
	fzCheckHeaders(t, msgs)
}

// fzCheckHeaders: in a message's transcript, the lines that look like a
// transcript line of their own are the renderer's, one per line it starts
// (a tool message or an earlier summary: one; otherwise one for its texts,
// one per tool call and per attachment, or the "<no content>" line), so no
// content can pose as a message. A line looks like one the way a model
// would read it (fzLooksLikeEntry), and lines are split at every line break
// a model may honour (fzLines). The fast transcript must also equal the
// reference rendering.
func fzCheckHeaders(t *testing.T, msgs []*schema.Message) {
	t.Helper()
	for _, m := range msgs {
		if m == nil {
			continue
		}
		want := 1
		if m.Role != schema.Tool && !IsStrategy(m, StrategySummarization) {
			texts, attachments := 0, 0
			for p := range render.Parts(m) {
				if p.IsText {
					texts = 1
				} else {
					attachments++
				}
			}
			want = max(texts+len(m.ToolCalls)+attachments, 1)
		}
		got := Transcript([]*schema.Message{m}, []int{0})
		if ref := ReferenceTranscript([]*schema.Message{m}, []int{0}); ref != got {
			t.Fatalf("the transcript differs from the reference rendering (Text: indentContinuation):\n%q\n%q", got, ref)
		}
		lines := 0
		for _, line := range fzLines(got) {
			if fzLooksLikeEntry(line) {
				lines++
			}
		}
		if lines != want {
			t.Fatalf("%d lines of the transcript look like a transcript line, the renderer starts %d:\n%q", lines, want, got)
		}
	}
}

// fzLines splits s at "\n", "\r", "\v", "\f", U+0085, U+2028 and
// U+2029 (the mandatory breaks of UAX #14), decoding it as a reader would
// (an invalid byte is U+FFFD).
func fzLines(s string) []string {
	var out []string
	var line []rune
	for _, r := range s {
		switch r {
		case '\n', '\r', '\v', '\f', '\u0085', '\u2028', '\u2029':
			out = append(out, string(line))
			line = line[:0]
		default:
			line = append(line, r)
		}
	}
	return append(out, string(line))
}

// fzLooksLikeEntry: a line that opens with "[" or a bracket drawn like it
// once the characters that show nothing (format characters, variation
// selectors, the other default ignorables) are dropped.
func fzLooksLikeEntry(line string) bool {
	line = strings.TrimLeftFunc(line, func(r rune) bool {
		return unicode.In(r, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
	})
	r, _ := utf8.DecodeRuneInString(line)
	return strings.ContainsRune("[［﹝﹇【〔〖〘〚⟦⁅⦋⦍⦏", r)
}

// fzAsSent is a copy of msgs with every text the rendering shows made
// valid UTF-8 as JSON encoding makes it, each invalid byte a U+FFFD.
func fzAsSent(msgs []*schema.Message) []*schema.Message {
	out := make([]*schema.Message, len(msgs))
	for i, m := range msgs {
		if m == nil {
			continue
		}
		c := *m
		c.Content, c.ToolName, c.ToolCallID = render.ValidUTF8(c.Content), render.ValidUTF8(c.ToolName), render.ValidUTF8(c.ToolCallID)
		c.ToolCalls = slices.Clone(c.ToolCalls)
		for j := range c.ToolCalls {
			tc := &c.ToolCalls[j]
			tc.ID, tc.Function.Name, tc.Function.Arguments = render.ValidUTF8(tc.ID), render.ValidUTF8(tc.Function.Name), render.ValidUTF8(tc.Function.Arguments)
		}
		c.UserInputMultiContent = slices.Clone(c.UserInputMultiContent)
		for j := range c.UserInputMultiContent {
			c.UserInputMultiContent[j].Text = render.ValidUTF8(c.UserInputMultiContent[j].Text)
		}
		c.AssistantGenMultiContent = slices.Clone(c.AssistantGenMultiContent)
		for j := range c.AssistantGenMultiContent {
			c.AssistantGenMultiContent[j].Text = render.ValidUTF8(c.AssistantGenMultiContent[j].Text)
		}
		c.MultiContent = slices.Clone(c.MultiContent)
		for j := range c.MultiContent {
			c.MultiContent[j].Text = render.ValidUTF8(c.MultiContent[j].Text)
		}
		out[i] = &c
	}
	return out
}

func fzAllIndices(msgs []*schema.Message) []int {
	out := make([]int, len(msgs))
	for i := range out {
		out[i] = i
	}
	return out
}

// FuzzMarkerOf: reading a marker never panics whatever Extra holds, agrees
// with the other marker readers, and counts survive JSON and gob.
func FuzzMarkerOf(f *testing.F) {
	for _, seed := range []string{"", "\x02\x0dsummarization\x00\x05", "\x03\x0d\x0d", "\x0f\x03abc", "\x10\x0b{\"strategy\":1}", "\x11\x1a{\"summarized_messages\":2e3}"} {
		f.Add([]byte(seed), int64(len(seed)))
	}
	f.Fuzz(func(t *testing.T, data []byte, n int64) {
		r := &fzReader{b: data}
		msg := user("x")
		msg.Extra = map[string]any{MetaKey: fzMarkerValue(r, 0)}
		mk, ok := MarkerOf(msg)
		fields, fok := MarkerFields(msg)
		if ok && (mk.Strategy == "" || !fok || fields["strategy"] != mk.Strategy) {
			t.Fatalf("MarkerOf = %+v but MarkerFields = %v, %v", mk, fields, fok)
		}
		if !HasMarkerKey(msg) || IsRealUser(msg) {
			t.Fatal("a message with the marker key counts as a real user")
		}
		if IsStrategy(msg, StrategySummarization) != (ok && mk.Strategy == StrategySummarization) {
			t.Fatal("IsStrategy disagrees with MarkerOf")
		}
		_ = Render([]*schema.Message{msg}, RenderOptions{})

		// A count written by NewMarker reads back after JSON and gob.
		want := int(n % (1 << 53))
		written := summary("s", 1)
		written.Extra[MetaKey] = NewMarker(StrategySummarization, want, nil)
		if want <= 0 {
			want = 0
		}
		for name, back := range map[string]*schema.Message{"json": fzViaJSON(t, written), "gob": fzViaGob(t, written)} {
			got, ok := MarkerOf(back)
			if !ok || got.SummarizedMessages != want || got.Strategy != StrategySummarization {
				t.Fatalf("after %s: MarkerOf = %+v, %v; want %d messages", name, got, ok, want)
			}
		}
	})
}

func fzViaJSON(t *testing.T, m *schema.Message) *schema.Message {
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var out schema.Message
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

func fzViaGob(t *testing.T, m *schema.Message) *schema.Message {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(m); err != nil {
		t.Fatal(err)
	}
	var out schema.Message
	if err := gob.NewDecoder(&buf).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return &out
}

// FuzzCompact: a conversation from the fuzz bytes, compacted again and again
// with new steps appended in between, by a summarizer whose answers are
// scripted by more fuzz bytes. Every round must satisfy invCompacted and the
// summarizer must only ever see well-framed transcripts.
func FuzzCompact(f *testing.F) {
	f.Add([]byte("\x02\x03\x03\x05\x00\x07"), []byte{}, uint16(200), uint8(1), uint16(10), uint8(0))
	f.Add([]byte("\x01\x00\x02\x00\x03\x03\x01\x04\x04\x02"), []byte{fzOK, fzError, fzOK}, uint16(50), uint8(0), uint16(1), uint8(0x1a))
	f.Add([]byte("\x00\x07\x09\x00\x03\x08\x05\x01"), []byte{fzPanic, fzHuge, fzTagged}, uint16(0), uint8(2), uint16(3), uint8(0x3f))
	f.Fuzz(fzCompact)
}

// fzCompact is FuzzCompact's body.
func fzCompact(t *testing.T, conv, script []byte, target uint16, minKeep uint8, approx uint16, knobs uint8) {
	defer fzWatchdog(20 * time.Second)()
	keep := int(minKeep % 4)
	raise := knobs&1 == 1
	counter := []TokenCounter{fc1, fc4, DefaultCounter(), TokenCounterFunc(fc1.Count)}[knobs>>1&3]
	rounds := 1 + int(knobs>>3&7)
	model := &fzSummarizer{script: script}
	c, err := NewSummarizationCompactor(context.Background(), &SummarizationConfig{
		ChatModel: model, MinKeepSteps: &keep, ApproximateSummaryTokens: new(1 + int(approx%2048)),
		RaiseOnFailure: raise, Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	b := &fzBuilder{r: &fzReader{b: conv}}
	b.system()
	b.grow(40)
	for round := range rounds {
		b.msgs = fzCompactRound(t, c, model, b.msgs, int(target), counter, keep, raise, round)
		b.settle()
		b.grow(4)
	}
}

// fzCompactRound runs one compaction of in and checks it; on success it
// leaves the result in place of in for the next round.
func fzCompactRound(t *testing.T, c *SummarizationCompactor, model *fzSummarizer, in []*schema.Message, target int, counter TokenCounter, keep int, raise bool, round int) []*schema.Message {
	t.Helper()
	if err := invToolPairing(in); err != nil {
		t.Fatalf("round %d: the builder made a malformed input: %v", round, err)
	}
	ctx := context.Background()
	fingerprint, ptrs := invFingerprint(in), slices.Clone(in)
	before, _ := counter.Count(ctx, in, nil)
	callsBefore, _, _ := model.report()
	out, err := c.Compact(ctx, in, target, counter)
	calls, _, problems := model.report()
	if len(problems) > 0 {
		t.Fatalf("round %d: summarizer prompt problems: %v", round, problems)
	}
	if !slices.Equal(in, ptrs) {
		t.Fatalf("round %d: the input slice was rewritten", round)
	}
	if err != nil {
		if !raise || !(errors.Is(err, errFzSummarizer) || errors.Is(err, ErrNoUsableSummary) ||
			errors.Is(err, ErrSummaryNotSmaller) || strings.Contains(err.Error(), "panicked")) {
			t.Fatalf("round %d: Compact error %v (RaiseOnFailure=%v)", round, err, raise)
		}
		if out != nil {
			t.Fatalf("round %d: Compact returned both a result and an error", round)
		}
	}
	if before <= target && (out != nil || calls != callsBefore) {
		t.Fatalf("round %d: input fits (%d <= %d) but the compactor acted", round, before, target)
	}
	after := 0
	if out != nil {
		after, _ = counter.Count(ctx, out, nil)
	}
	if err := invCompacted(in, fingerprint, out, before, after, keep); err != nil {
		t.Fatalf("round %d (target %d, %d tokens before): %v", round, target, before, err)
	}
	if out == nil {
		return in
	}
	return out
}

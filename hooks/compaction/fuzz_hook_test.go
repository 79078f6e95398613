package compaction

import (
	"context"
	"log/slog"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
)

// FuzzHook: the hook's decision and write-back over chained agent steps,
// with provider usage known or not and thresholds from the fuzz input. The
// trigger must match independent arithmetic, and the state must hold either
// the very slice it had or a valid compaction of it.
func FuzzHook(f *testing.F) {
	f.Add([]byte("\x02\x03\x03\x05\x00\x07\x04\x04"), []byte{}, uint16(300), uint8(70), uint8(50), uint8(0))
	f.Add([]byte("\x01\x00\x02\x00\x03\x03\x01\x04\x04\x02\x06\x06"), []byte{fzError, fzOK}, uint16(120), uint8(90), uint8(20), uint8(0x35))
	f.Add([]byte("\x00\x07\x09\x00\x03\x08\x05\x01\x03\x03\x03"), []byte{fzHuge}, uint16(2000), uint8(10), uint8(99), uint8(0xff))
	// CompactTo close to CompactAt: the hook aims lower (Thresholds), and
	// a floor of 7 between that target (7) and ContextWindow*CompactTo (8)
	// is rejected.
	f.Add([]byte("\x02\x03\x03\x05"), []byte{}, uint16(16), uint8(49), uint8(98), uint8(6<<5))
	f.Fuzz(func(t *testing.T, conv, script []byte, window uint16, at, to uint8, knobs uint8) {
		defer fzWatchdog(20 * time.Second)()
		ctx := context.Background()
		compactAt := float64(1+at%100) / 100
		compactTo := compactAt * float64(1+to%99) / 100
		keep := int(knobs & 3)
		raise := knobs&4 != 0
		withUsage := knobs&8 != 0
		var tools []*schema.ToolInfo
		if knobs&16 != 0 {
			tools = []*schema.ToolInfo{{Name: "search", Desc: "finds pages"}}
		}
		c, err := NewSummarizationCompactor(ctx, &SummarizationConfig{ChatModel: &fzSummarizer{script: script}, MinKeepSteps: &keep,
			ApproximateSummaryTokens: new(1 + int(knobs>>5)), RaiseOnFailure: raise, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		h, err := NewCompactionHook(ctx, &HookConfig{Compactor: c, ContextWindow: 1 + int(window), CompactAt: compactAt, CompactTo: compactTo,
			TokenCounter: fc4, Logger: slog.New(slog.DiscardHandler),
			// The invariants expect summaries only; the model-free fallback
			// is tested by TestHookFallsBackWhenSummarizationFails.
			DisableFallback: true})
		if err != nil {
			// The target the hook aims for: CompactTo's, or below 12/13 of
			// the trigger so that the band above it (1/12) stays below it.
			w := float64(1 + int(window))
			target := min(int(w*compactTo), int(math.Ceil(w*compactAt*12/13))-1)
			if 1+int(knobs>>5) < target || !strings.Contains(err.Error(), "floor") {
				t.Fatalf("a workable configuration was rejected (target %d): %v", target, err)
			}
			return
		}
		b := &fzBuilder{r: &fzReader{b: conv}}
		b.system()
		b.grow(30)
		for round := range 4 {
			in := b.msgs
			fingerprint := invFingerprint(in)
			st := &hooks.State{Messages: in, Tools: tools}
			if withUsage && LastAssistantIndex(in) >= 0 {
				// What a provider would report for the call that produced the last reply.
				st.ContextTokens = count(fc4, in[:LastAssistantIndex(in)+1]...) + len(RenderTools(tools))/4
			}
			est := st.ContextTokens + count(fc4, in[LastAssistantIndex(in)+1:]...)
			if st.ContextTokens == 0 {
				est, _ = fc4.Count(ctx, in, tools)
			}
			r, err := h.Decide(ctx, st)
			if r.Triggered != (float64(est) >= float64(1+int(window))*compactAt) || r.Estimated != est {
				t.Fatalf("round %d: estimated %d, triggered %v; independent estimate %d against trigger %v",
					round, r.Estimated, r.Triggered, est, float64(1+int(window))*compactAt)
			}
			if err != nil && !raise {
				t.Fatalf("round %d: hook failed without RaiseOnFailure: %v", round, err)
			}
			var out []*schema.Message
			if !slices.Equal(st.Messages, in) {
				out = st.Messages
			}
			if (out != nil) != r.Compacted || (err != nil && out != nil) {
				t.Fatalf("round %d: report says compacted=%v, state changed=%v, error %v", round, r.Compacted, out != nil, err)
			}
			if out != nil && withUsage && st.ContextTokens < 1 {
				t.Fatalf("round %d: ContextTokens %d after compaction would read as unknown", round, st.ContextTokens)
			}
			after := 0
			if out != nil {
				after = count(fc4, out...)
			}
			if err := invCompacted(in, fingerprint, out, count(fc4, in...), after, keep); err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			if out != nil {
				b.msgs = out
			}
			b.settle()
			b.grow(4)
		}
	})
}

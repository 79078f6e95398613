package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/integration/inspect"
)

const compactUsage = `usage: einocompact compact --in FILE --window N [flags]

Previews what a CompactionHook would do to a recorded conversation before the
next model call: it estimates the prompt, and when that reaches --at of the
window, compacts towards --to of it, then prints a before/after table (and,
when the result sits above --to, why) and writes the result with --out.
--in - reads the transcript from stdin. With no provider usage recorded, the
estimate is the counter's size of the messages plus any tool schemas in the
file.

The summarizer is an OpenAI-compatible endpoint when SUMMARIZER_BASE_URL or
OPENAI_BASE_URL (with the matching _API_KEY and _MODEL) is set, as for the
application; otherwise, or with --offline, the offline extractive summarizer.

The OpenAI format has no place for compaction markers: a summary written back
as OpenAI JSON reads as a user message next time. Keep Eino JSON to compact a
transcript again later.

flags:
`

// compactRun is one invocation of the compact subcommand.
type compactRun struct {
	in, out, format, strategy, counter string
	html                               string
	window, summaryTokens              int
	at, to                             float64
	offline, quiet, strictPairing      bool
}

func parseCompact(args []string, stderr io.Writer) (*compactRun, error) {
	r := &compactRun{}
	fs := flag.NewFlagSet("compact", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, compactUsage)
		fs.PrintDefaults()
	}
	fs.StringVar(&r.in, "in", "", "transcript to compact (required); - reads it from stdin")
	fs.StringVar(&r.format, "format", formatAuto, "transcript format: eino (JSON []*schema.Message), openai (chat-completions messages or request body), or auto")
	fs.IntVar(&r.window, "window", 0, "the model's context window in tokens (required)")
	fs.Float64Var(&r.at, "at", 0.7, "compact when the estimate reaches this fraction of the window")
	fs.Float64Var(&r.to, "to", 0.4, "compact towards this fraction of the window (summarize and pipeline go deeper when the assumed OpenAI-like prices make that cheaper, keeping the newest fifth verbatim)")
	fs.StringVar(&r.strategy, "strategy", strategySummarize, "summarize, slide, prune, or pipeline (prune, then summarize); the names the markers carry (summarization, sliding_window, tool_result_pruning) also work")
	fs.IntVar(&r.summaryTokens, "summary-tokens", 0, "expected size of one summary, for planning (summarize and pipeline), until the summarizer's replies show it; 0 means the compactor's default (the round's output budget, 64 + a sixth of what it replaces, at most 512, plus the identifier ledger's cap). It must stay below the --to share of the window")
	fs.StringVar(&r.counter, "counter", counterApprox, "token counter: approx (4 chars/token), o200k or cl100k (exact BPE)")
	fs.StringVar(&r.out, "out", "", "write the compacted transcript here, in the input's format")
	fs.StringVar(&r.html, "html", "", "write the compaction inspector's page of this compaction here: one self-contained HTML file with the chart, the report and what each round replaced next to its summary (the transcript's text, redacted)")
	fs.BoolVar(&r.offline, "offline", false, "never call a summarizer endpoint, whatever the environment says")
	fs.BoolVar(&r.quiet, "quiet", false, "no progress lines on stderr")
	fs.BoolVar(&r.strictPairing, "strict-pairing", false, "fail (exit 1) on tool-call pairing faults in the input rather than warn and go on")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, usageErrorf("%v", err)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	// The hook checks these too, but in its own names (HookConfig,
	// CompactAt); the user typed flags.
	switch {
	case fs.NArg() > 0:
		return nil, usageErrorf("unexpected argument %q", fs.Arg(0))
	case r.in == "":
		return nil, usageErrorf("--in is required")
	case !set["window"]:
		return nil, usageErrorf("--window is required: the model's context window in tokens")
	case r.window < 1:
		return nil, usageErrorf("--window must be a positive number of tokens, got %d", r.window)
	case !(0 < r.at && r.at <= 1):
		return nil, usageErrorf("--at must be a fraction of the window above 0 and at most 1, got %v", r.at)
	case !(0 < r.to && r.to < r.at):
		return nil, usageErrorf("--to must be above 0 and below --at (%v): compaction starts at --at of the window and goes down to --to of it; got --to %v", r.at, r.to)
	case r.summaryTokens < 0:
		return nil, usageErrorf("--summary-tokens must be at least 0 (0 = the default), got %d", r.summaryTokens)
	case r.format != formatAuto && r.format != formatEino && r.format != formatOpenAI:
		return nil, usageErrorf("--format %q: must be eino, openai or auto", r.format)
	}
	return r, nil
}

func (r *compactRun) run(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, lookup func(string) (string, bool)) error {
	t, err := readInput(r.in, r.format, stdin)
	if err != nil {
		return err
	}
	name := r.in
	if name == "-" {
		name = stdinName
	}
	if faults := inputPairingFaults(t.messages); len(faults) > 0 {
		if r.strictPairing {
			return fmt.Errorf("%s: %s", name, describeFaults(faults, ""))
		}
		fmt.Fprintf(stderr, "einocompact: warning: %s: %s", name,
			describeFaults(faults, "; compaction keeps them as they are (--strict-pairing makes this an error)")+"\n")
	}
	counter, err := newCounter(r.counter)
	if err != nil {
		return err
	}
	progress := io.Discard
	if !r.quiet {
		progress = stderr
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	setup, err := newCompactor(ctx, r.strategy, r.summaryTokens, r.offline, lookup, progress, log)
	if err != nil {
		return err
	}
	hook, err := compaction.NewCompactionHook(ctx, &compaction.HookConfig{
		Compactor: setup.compactor, ContextWindow: r.window, CompactAt: r.at, CompactTo: r.to,
		TokenCounter: counter, Logger: log,
		// The command compacts with the strategy asked for; it does not
		// substitute another when that one fails.
		DisableFallback: true,
	})
	if err != nil {
		if msg := r.floorProblem(setup.compactor); msg != "" {
			return usageErrorf("%s", msg)
		}
		return usageErrorf("%v", err)
	}
	if err := hook.WarmUp(ctx); err != nil {
		return err
	}
	defer hook.Close(context.WithoutCancel(ctx))

	before, err := describe(ctx, t.messages, counter)
	if err != nil {
		return err
	}
	trigger, target := hook.Thresholds()
	fmt.Fprintf(stdout, "%s: %s format, %d messages, %d tool schemas\n", name, t.format, len(t.messages), len(t.tools))
	fmt.Fprintf(stdout, "strategy %s", r.strategy)
	if setup.summarizer != "" {
		fmt.Fprintf(stdout, " (summarizer: %s)", setup.summarizer)
	}
	fmt.Fprintf(stdout, ", counter %s\nwindow %d: compact at %.0f tokens, towards %d\n", r.counter, r.window, trigger, target)
	fmt.Fprintf(progress, "einocompact: estimating %d messages with %s...\n", len(t.messages), r.strategy)

	state := &hooks.State{Messages: t.messages, Tools: t.tools}
	decide := hook.Decide
	var rec *inspect.Recorder
	if r.html != "" {
		// The page is written for this one transcript: its text is the
		// point, so content capture is on, bounded by the file a browser
		// can still open rather than by a server's memory.
		if rec, err = inspect.NewRecorder(&inspect.Config{CaptureContent: true, MaxContentBytes: 64 << 20}); err != nil {
			return err
		}
		w, err := rec.Wrap(hook)
		if err != nil {
			return err
		}
		decide = w.Decide
		ctx = inspect.WithConversation(ctx, name)
	}
	rep, err := decide(ctx, state)
	if err != nil {
		return err
	}
	if rep.Err != nil {
		// The compactor ran and failed without an error for the run (a
		// dead summarizer, RaiseOnFailure off): no transcript with nothing
		// left to compact, and no success.
		return fmt.Errorf("%s failed, nothing was compacted: %w", r.strategy, rep.Err)
	}
	switch {
	case !rep.Triggered:
		fmt.Fprintf(stdout, "estimated %d tokens, below the trigger: nothing to compact\n\n", rep.Estimated)
	case !rep.Compacted:
		fmt.Fprintf(stdout, "estimated %d tokens, target %d: %s found nothing it may compact\n\n", rep.Estimated, rep.Target, r.strategy)
	default:
		fmt.Fprintf(stdout, "estimated %d tokens (overhead %d), target %d: compacted in %s\n\n", rep.Estimated, rep.Overhead, rep.Target, latency(rep.Duration))
	}
	after := before
	if !sameMessages(t.messages, state.Messages) {
		if after, err = describe(ctx, state.Messages, counter); err != nil {
			return err
		}
	}
	writeTable(stdout, before, after, rep, state.Messages)
	if err := explainAbove(ctx, stdout, rep, r.strategy, r.window, state.Messages, counter); err != nil {
		return err
	}

	// The result first: a page that cannot be written must not cost it.
	if r.out != "" {
		data, err := t.encode(state.Messages)
		if err != nil {
			return fmt.Errorf("encoding the result: %w", err)
		}
		if err := os.WriteFile(r.out, append(data, '\n'), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "\nwrote %s (%d messages)\n", r.out, len(state.Messages))
	}
	if rec != nil {
		if err := writePage(rec, r.html); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "\nwrote %s (the inspector's page: open it in a browser)\n", r.html)
	}
	return nil
}

// maxFaultLines caps the faults listed one per line; the count says the rest.
const maxFaultLines = 10

// describeFaults says how many pairing faults there are, note appended to
// that line, then lists them one per line.
func describeFaults(faults []pairingFault, note string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d tool-call pairing fault(s) a provider would reject%s:\n", len(faults), note)
	for _, f := range faults[:min(len(faults), maxFaultLines)] {
		fmt.Fprintf(&b, "  %s\n", f)
	}
	if len(faults) > maxFaultLines {
		fmt.Fprintf(&b, "  and %d more\n", len(faults)-maxFaultLines)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// floorProblem explains, in this command's flags, a target too small for the
// compactor's planned summary size; "" when there is no such problem or the
// fractions themselves are wrong (the hook's own error says that best).
func (r *compactRun) floorProblem(c compaction.Compactor) string {
	f, ok := c.(compaction.SizeFloor)
	if !ok || !(0 < r.to && r.to < r.at && r.at <= 1) {
		return ""
	}
	floor, target := f.MinimumTokens(), int(float64(r.window)*r.to)
	if floor <= 0 || floor < target {
		return ""
	}
	return fmt.Sprintf("--window %d × --to %v = %d tokens leaves no room for one %d-token summary, so every call would compact again; "+
		"raise --window or --to, or lower --summary-tokens", r.window, r.to, target, floor)
}

// writePage writes the page of the one conversation rec holds to path,
// nothing when it cannot be rendered. The recorder files the run under the
// transcript's name clipped to the length it keeps of an id, so the page is
// looked up by what it kept, not by the name.
func writePage(rec *inspect.Recorder, path string) error {
	ids := rec.Conversations()
	if len(ids) != 1 {
		return fmt.Errorf("writing %s: the inspector holds %d conversations, not this run's one", path, len(ids))
	}
	var page bytes.Buffer
	if err := rec.WriteHTML(&page, ids[0]); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return os.WriteFile(path, page.Bytes(), 0o644)
}

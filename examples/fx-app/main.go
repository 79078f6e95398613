// Command fx-app is einocompact's demo: a tool-using agent wired with
// go.uber.org/fx from a YAML config, investigating an incident in a small
// bundled repository while a CompactionHook keeps its context under a
// deliberately small window.
//
// Offline (the default) the agent's model replays a trajectory scripted by
// hand for the demo: no model chose its steps, but the tools really run
// against the workspace. Summaries come from the offline extractive
// summarizer. With OPENAI_BASE_URL set (or model.base_url in the config) the
// agent uses that OpenAI-compatible endpoint instead, and --record FILE saves
// its run as a trajectory to replay.
//
//	go run ./examples/fx-app [--config FILE] [--transcript-out FILE] [--html FILE] [--quiet]
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"time"

	"go.uber.org/fx"
)

const usageText = `fx-app: einocompact's demo agent, wired with go.uber.org/fx.

Runs a tool-using agent on a bundled repository (an incident investigation)
with a deliberately small context window, and prints a legend, one line per
step (the prompt size estimated locally and as the model's reply reported it;
offline the replay computes that number itself) and one per compaction (tier,
messages replaced, tokens before and after, summarizer latency), then a
summary table.

Offline by default: the agent's model replays a trajectory scripted by hand
for the demo (no model chose its steps or wrote its answer), the tools really
run against the workspace, and the summarizer is the offline extractive one.
Set OPENAI_BASE_URL (and OPENAI_API_KEY, OPENAI_MODEL) to run a live model on
any OpenAI-compatible endpoint; SUMMARIZER_BASE_URL, SUMMARIZER_API_KEY and
SUMMARIZER_MODEL give the summarizer its own. --record FILE saves a live run's
replies as a trajectory that demo.trajectory replays offline.
Every config key is listed in docs/configuration.md.

Usage:
  go run ./examples/fx-app [flags]

Flags:
`

type flags struct {
	config, transcriptOut, record, logLevel string
	html                                    string
	quiet                                   bool
	summarizerLatency, modelLatency         time.Duration
}

// parseFlags parses args; --help prints the usage to stdout and returns
// flag.ErrHelp.
func parseFlags(args []string, stdout io.Writer) (flags, error) {
	var f flags
	fs := flag.NewFlagSet("fx-app", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.config, "config", "", "YAML config `file` applied over the embedded defaults")
	fs.StringVar(&f.transcriptOut, "transcript-out", "", "write the final (compacted) conversation as JSON to `file`")
	fs.StringVar(&f.html, "html", "", "write the compaction inspector's page of the run to `file`: one self-contained HTML file with the prompt size at every model call, every compaction, and what each round replaced next to its summary (the conversation's text, redacted)")
	fs.StringVar(&f.record, "record", "", "with a live model, write the run's model replies as a trajectory `file` that demo.trajectory can replay offline")
	fs.BoolVar(&f.quiet, "quiet", false, "print only the summary table")
	fs.StringVar(&f.logLevel, "log-level", "warn", "slog `level` on stderr: debug, info, warn or error")
	fs.DurationVar(&f.summarizerLatency, "summarizer-latency", 0, "make every summarizer call take this `duration` (e.g. 2s), as a hosted model would, to see what compaction costs the agent in time")
	fs.DurationVar(&f.modelLatency, "model-latency", 0, "make every reply of the offline replay take this `duration` (e.g. 500ms), so the agent keeps working while a compaction is prepared")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(stdout, fs)
		}
		return f, err
	}
	if fs.NArg() > 0 {
		return f, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	return f, nil
}

// printUsage writes the help text, with flags spelled the GNU way
// (--config) as the README does; the flag package accepts both spellings.
func printUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, usageText)
	fs.VisitAll(func(fl *flag.Flag) {
		arg, usage := flag.UnquoteUsage(fl)
		if arg != "" {
			arg = " " + arg
		}
		def := ""
		if fl.DefValue != "" && fl.DefValue != "false" {
			def = fmt.Sprintf(" (default %q)", fl.DefValue)
		}
		fmt.Fprintf(w, "  --%s%s\n        %s%s\n", fl.Name, arg, usage, def)
	})
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.LookupEnv)
	stop()
	os.Exit(code)
}

// run is main without the process: it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, env func(string) (string, bool)) int {
	f, err := parseFlags(args, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "fx-app: %v (see --help)\n", err)
		return 2
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
		fmt.Fprintf(stderr, "fx-app: --log-level %q: %v\n", f.logLevel, err)
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	cfg, err := loadConfig(f.config, env)
	if err != nil {
		fmt.Fprintln(stderr, "fx-app:", err)
		return 1
	}
	if f.summarizerLatency < 0 || f.modelLatency < 0 {
		fmt.Fprintln(stderr, "fx-app: --summarizer-latency and --model-latency must not be negative")
		return 2
	}
	cfg.summarizerLatency, cfg.modelLatency = f.summarizerLatency, f.modelLatency
	if f.html != "" {
		// The page is for reading this run: its text is the point.
		cfg.Inspect.Enabled, cfg.Inspect.CaptureContent = true, true
	}
	if f.record != "" && !cfg.online() {
		fmt.Fprintln(stderr, "fx-app: --record needs a live model (set OPENAI_BASE_URL); offline runs replay a trajectory already")
		return 2
	}
	var r *runner
	app := fx.New(appOptions(cfg, output{w: stdout, quiet: f.quiet}, log), fx.Populate(&r))
	if err := app.Err(); err != nil {
		fmt.Fprintln(stderr, "fx-app:", err)
		return 1
	}
	startCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := app.Start(startCtx); err != nil {
		fmt.Fprintln(stderr, "fx-app: start:", err)
		return 1
	}
	res, rep, runErr := r.run(ctx)
	stopCtx, cancelStop := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancelStop()
	stopErr := app.Stop(stopCtx)
	if runErr != nil {
		fmt.Fprintln(stderr, "fx-app: run:", runErr)
		return 1
	}
	if stopErr != nil {
		fmt.Fprintln(stderr, "fx-app: stop:", stopErr)
		return 1
	}
	if f.record != "" {
		task, _ := r.task()
		t, err := rep.recordTrajectory(task, cfg.Model.Model)
		if err == nil {
			err = writeTrajectory(f.record, t)
		}
		if err != nil {
			fmt.Fprintln(stderr, "fx-app: --record:", err)
			return 1
		}
		if !f.quiet {
			fmt.Fprintf(stdout, "\nrecorded %d steps to %s; replay them with demo.trajectory: %s\n", len(t.Steps), f.record, f.record)
		}
	}
	if f.html != "" {
		if err := writeInspectorPage(r.recorder, f.html); err != nil {
			fmt.Fprintln(stderr, "fx-app: --html:", err)
			return 1
		}
		// Printed even with --quiet: it is the one place that says where
		// the page is.
		fmt.Fprintf(stdout, "\nwrote the compaction inspector's page to %s: open %s in a browser\n", f.html, fileURL(f.html))
	}
	if f.transcriptOut != "" {
		data, err := json.MarshalIndent(res.Messages, "", "  ")
		if err == nil {
			err = os.WriteFile(f.transcriptOut, append(data, '\n'), 0o644)
		}
		if err != nil {
			fmt.Fprintln(stderr, "fx-app: --transcript-out:", err)
			return 1
		}
		if !f.quiet {
			fmt.Fprintf(stdout, "\nwrote the final conversation (%d messages) to %s\n", len(res.Messages), f.transcriptOut)
		}
	}
	return 0
}

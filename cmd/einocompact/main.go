// Command einocompact previews context compaction on a recorded conversation.
//
//	einocompact compact --in transcript.json --window 8000 [--at 0.7] [--to 0.4]
//	    [--format auto|eino|openai] [--strategy summarize|slide|prune|pipeline]
//	    [--counter approx|o200k|cl100k] [--summary-tokens N] [--out compacted.json]
//	    [--html page.html] [--offline] [--quiet] [--strict-pairing]
//
// It reads Eino messages (JSON []*schema.Message) or an OpenAI chat-completions
// request (or just its messages array) from a file, a pipe, or stdin with
// --in -, runs a CompactionHook on it as an agent
// would before its next model call, prints a before/after table (messages,
// tokens, tool calls, identifiers kept, the tier of each summarizer round) and
// writes the result in the input's format; --html writes the compaction
// inspector's page of it (integration/inspect) as one self-contained file.
// Progress goes to stderr, and so does a warning listing, by position, the tool-call pairing faults of the
// input (a result answering no call, a call without its result), which a
// provider would reject; --strict-pairing makes them an error. Exit status:
// 0 done, 1 failed (pairing faults with --strict-pairing), 2 bad usage.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
)

const usage = `usage: einocompact <command> [flags]

commands:
  compact   preview compaction of a recorded conversation (einocompact compact -h)
`

// usageError is a mistake in the command line, reported with exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.LookupEnv)
	stop()
	os.Exit(code)
}

// run executes one command line and returns the exit status. Everything it
// needs from the process is passed in, so tests can run it in place.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, lookup func(string) (string, bool)) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "compact":
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "einocompact: unknown command %q\n%s", args[0], usage)
		return 2
	}
	r, err := parseCompact(args[1:], stderr)
	if err == nil {
		err = r.run(ctx, stdin, stdout, stderr, lookup)
	}
	var ue *usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "einocompact compact: %v (see einocompact compact -h)\n", err)
		return 2
	default:
		fmt.Fprintf(stderr, "einocompact: %v\n", err)
		return 1
	}
}

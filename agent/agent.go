package agent

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/internal/ctxonce"
)

// Agent is a tool-using chat agent that runs hooks at every hook point. It is
// safe for concurrent use: each run has its own state.
type Agent struct {
	cfg       Config
	toolInfos []*schema.ToolInfo
	runnable  compose.Runnable[[]*schema.Message, *Result]

	// warm lets one caller warm the hooks up while the others wait, each
	// only as long as its ctx allows.
	warm ctxonce.Once
}

// New builds an agent from cfg. It reads the tools' schemas and binds them to
// the model once, here, so runs do not repeat that work.
func New(ctx context.Context, cfg *Config) (*Agent, error) {
	c, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	if c.Tools, err = withProvidedTools(ctx, c.Tools, c.Hooks); err != nil {
		return nil, err
	}
	infos, err := toolInfos(ctx, c.Tools)
	if err != nil {
		return nil, err
	}
	var chat model.BaseChatModel = c.Model
	if len(infos) > 0 {
		if chat, err = c.Model.WithTools(infos); err != nil {
			return nil, fmt.Errorf("agent: bind tools to Model: %w", err)
		}
	}
	toolsCfg := &compose.ToolsNodeConfig{Tools: c.Tools}
	if !c.AbortOnToolError {
		toolsCfg.ToolCallMiddlewares = []compose.ToolMiddleware{toolErrorsAsResults()}
		toolsCfg.UnknownToolsHandler = unknownToolResult
	}
	if c.Hooks.HasToolScopers() {
		toolsCfg.ToolCallMiddlewares = append(toolsCfg.ToolCallMiddlewares, toolScope(c.Hooks))
	}
	tools, err := compose.NewToolNode(ctx, toolsCfg)
	if err != nil {
		return nil, fmt.Errorf("agent: build tools node: %w", err)
	}
	a := &Agent{cfg: c, toolInfos: infos}
	if a.runnable, err = a.buildGraph(ctx, chat, tools); err != nil {
		return nil, fmt.Errorf("agent: build graph: %w", err)
	}
	return a, nil
}

// WarmUp warms up the registry's hooks (see hooks.Registry.WarmUp). Run and
// Stream call it on first use; call it yourself to pay the cost at startup.
// After a success it does nothing; after a failure the next call retries.
// One caller warms up at a time; a caller waiting for another's warm-up
// gives up when its ctx ends, with an error wrapping ctx.Err().
func (a *Agent) WarmUp(ctx context.Context) error {
	if err := a.warm.Do(ctx, a.cfg.Hooks.WarmUp); err != nil {
		return fmt.Errorf("agent: warm up: %w", err)
	}
	return nil
}

// Run runs the agent on messages (usually a carried-over conversation plus
// a new user message) until it answers, a hook stops it, or MaxSteps runs
// out. messages are not modified.
//
// Any hook error aborts the run and is returned wrapped (errors.Is finds it);
// so are model errors, and tool errors when Config.AbortOnToolError is set
// (by default a tool's error is its call's result, for the model to read).
// A cancelled ctx always yields an error wrapping ctx.Err().
func (a *Agent) Run(ctx context.Context, messages []*schema.Message) (*Result, error) {
	if err := checkInput(messages); err != nil {
		return nil, err
	}
	if err := a.WarmUp(ctx); err != nil {
		return nil, err // WarmUp's error says "agent:" and wraps ctx.Err() already
	}
	res, err := a.runnable.Invoke(ctx, messages)
	if err != nil {
		return nil, wrapRunErr(ctx, err)
	}
	return res, nil
}

// Stream runs the agent like Run, streaming the model's replies chunk by
// chunk (EventMessageChunk) and the tool results (EventToolResult) as they
// come, and ending with one EventDone carrying the Result. A failed run ends
// the stream with its error instead. The run waits for the reader at each
// event; closing the reader early cancels the run at its next event.
//
// A cancelled ctx ends the run whatever the reader does, even one that
// stopped reading and never closes the stream: the run stops waiting for it
// and frees everything. A reader that goes on reading after the cancellation
// gets an error wrapping ctx.Err(), never a bare io.EOF.
func (a *Agent) Stream(ctx context.Context, messages []*schema.Message) (*schema.StreamReader[*Event], error) {
	if err := checkInput(messages); err != nil {
		return nil, err
	}
	if err := a.WarmUp(ctx); err != nil {
		return nil, err // WarmUp's error says "agent:" and wraps ctx.Err() already
	}
	runCtx, cancel := context.WithCancel(ctx)
	// Unbuffered: each event is handed over before the run goes on, so a reader
	// that closed the stream is noticed at the very next event.
	pr, sw := schema.Pipe[*Event](0)
	// Automatic close makes closing the read end idempotent, so the run may
	// close it too: a send blocked on a reader that went away then returns.
	pr.SetAutomaticClose()
	stopWatch := context.AfterFunc(ctx, pr.Close)
	sink := func(ev *Event) error {
		if closed := sw.Send(ev, nil); closed {
			cancel()
			return errStreamClosed
		}
		return nil
	}
	go func() {
		defer cancel()
		defer stopWatch()
		defer sw.Close()
		res, err := a.stream(withSink(runCtx, sink), messages)
		if err != nil {
			sw.Send(nil, wrapRunErr(ctx, err))
			return
		}
		sw.Send(&Event{Kind: EventDone, Step: res.StepCount, Result: res}, nil)
	}()
	return endWithCause(ctx, pr), nil
}

// endWithCause passes events through and, when the stream ends without its
// final event or error (the run gave up on a cancelled ctx before it could
// hand them over), reports the cancellation instead of a clean end.
func endWithCause(ctx context.Context, pr *schema.StreamReader[*Event]) *schema.StreamReader[*Event] {
	ended := false
	return schema.StreamReaderWithConvert(pr,
		func(ev *Event) (*Event, error) {
			if ev != nil && ev.Kind == EventDone {
				ended = true
			}
			return ev, nil
		},
		schema.WithErrWrapper(func(err error) error {
			ended = true
			return err
		}),
		schema.WithOnEOF(func() (any, error) {
			if ended {
				return nil, io.EOF
			}
			return nil, wrapRunErr(ctx, errors.New("stream ended before the run did"))
		}))
}

var errStreamClosed = errors.New("agent: stream closed by the reader")

// ErrInvalidInput is wrapped by the error Run and Stream return for messages
// they cannot run: a nil message would otherwise reach the model client and
// come back as a recovered nil-pointer panic with a stack trace.
var ErrInvalidInput = errors.New("agent: invalid input")

func checkInput(messages []*schema.Message) error {
	for i, m := range messages {
		if m == nil {
			return fmt.Errorf("%w: messages[%d] is nil", ErrInvalidInput, i)
		}
	}
	return nil
}

// stream runs the graph in Eino's streaming mode, so the model node streams,
// and waits for the Result.
func (a *Agent) stream(ctx context.Context, messages []*schema.Message) (res *Result, err error) {
	defer func() {
		// Eino turns node panics into errors; this guards the glue here, so a
		// bug cannot take down a server that streams many runs.
		if p := recover(); p != nil {
			err = fmt.Errorf("agent: panic in streamed run: %v", p)
		}
	}()
	out, err := a.runnable.Stream(ctx, messages)
	if err != nil {
		return nil, err
	}
	defer out.Close()
	for {
		r, err := out.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if r != nil {
			res = r
		}
	}
	if res == nil {
		return nil, errors.New("agent: the run produced no result")
	}
	return res, nil
}

// wrapRunErr prefixes err and makes sure a cancelled or expired ctx is
// reported as such even when the failing component did not wrap it.
func wrapRunErr(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("agent: %w: %w", cerr, err)
	}
	return fmt.Errorf("agent: %w", err)
}

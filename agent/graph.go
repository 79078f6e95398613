package agent

import (
	"context"
	"errors"
	"io"
	"slices"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	einoint "github.com/einocompact/einocompact/integration/eino"
)

// Node keys of the agent's graph.
const (
	nodeBegin     = "begin"       // build the state, before_run
	nodeStep      = "step"        // budget check, before_llm, stop check
	nodeModel     = "model"       // the chat model
	nodeRecord    = "record"      // append the reply, usage, route
	nodeExit      = "on_exit"     // text answer: on_exit, maybe continue
	nodeTool      = "before_tool" // before_tool, align the pending calls
	nodeTools     = "tools"       // Eino's ToolsNode
	nodeSkipTools = "skip_tools"  // no pending calls left
	nodeAfterTool = "after_tool"  // append results, after_tool
	nodeFinish    = "finish"      // after_run, build the Result
)

// ErrPendingCalls is wrapped by the run error when before_tool hooks left
// pending tool calls that no assistant message at the end of the
// conversation asks for: running them would create orphan tool results.
var ErrPendingCalls = errors.New("agent: pending tool calls without their assistant message")

// buildGraph wires the ReAct loop as an Eino graph; see the package doc.
func (a *Agent) buildGraph(ctx context.Context, chat model.BaseChatModel, tools *compose.ToolsNode) (compose.Runnable[[]*schema.Message, *Result], error) {
	g := compose.NewGraph[[]*schema.Message, *Result](compose.WithGenLocalState(newRunState))

	steps := []func() error{
		func() error { return g.AddLambdaNode(nodeBegin, compose.InvokableLambda(a.begin)) },
		func() error { return g.AddLambdaNode(nodeStep, compose.InvokableLambda(a.step)) },
		func() error {
			return g.AddChatModelNode(nodeModel, &stateToolsModel{inner: chat, bound: a.toolInfos})
		},
		func() error {
			record, err := compose.AnyLambda(a.recordInvoke, nil, nil, a.recordTransform)
			if err != nil {
				return err
			}
			return g.AddLambdaNode(nodeRecord, record)
		},
		func() error { return g.AddLambdaNode(nodeExit, compose.InvokableLambda(a.onExit)) },
		func() error { return g.AddLambdaNode(nodeTool, compose.InvokableLambda(a.beforeTool)) },
		func() error { return g.AddToolsNode(nodeTools, tools) },
		func() error { return g.AddLambdaNode(nodeSkipTools, compose.InvokableLambda(skipTools)) },
		func() error { return g.AddLambdaNode(nodeAfterTool, compose.InvokableLambda(a.afterTool)) },
		func() error { return g.AddLambdaNode(nodeFinish, compose.InvokableLambda(a.finish)) },

		func() error { return g.AddEdge(compose.START, nodeBegin) },
		func() error { return g.AddEdge(nodeBegin, nodeStep) },
		func() error { return g.AddBranch(nodeStep, route[[]*schema.Message](nodeModel, nodeFinish)) },
		func() error { return g.AddEdge(nodeModel, nodeRecord) },
		func() error { return g.AddBranch(nodeRecord, route[*schema.Message](nodeExit, nodeTool)) },
		func() error { return g.AddBranch(nodeExit, route[[]*schema.Message](nodeStep, nodeFinish)) },
		func() error { return g.AddBranch(nodeTool, route[*schema.Message](nodeTools, nodeSkipTools)) },
		func() error { return g.AddEdge(nodeTools, nodeAfterTool) },
		func() error { return g.AddEdge(nodeSkipTools, nodeAfterTool) },
		func() error { return g.AddEdge(nodeAfterTool, nodeStep) },
		func() error { return g.AddEdge(nodeFinish, compose.END) },
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return nil, err
		}
	}
	// A step visits at most six nodes; begin, the last budget check and
	// finish add three. Eino's own limit is only a backstop: the agent stops
	// itself at MaxSteps with ExitMaxSteps.
	return g.Compile(ctx,
		compose.WithGraphName(a.cfg.Name),
		compose.WithNodeTriggerMode(compose.AnyPredecessor),
		compose.WithMaxRunSteps(6*(a.cfg.MaxSteps+1)+10),
	)
}

// route is a branch that goes where the node before it decided (runState.next).
// It is a stream branch so that, in streamed runs, it does not wait for or
// concatenate the node's output.
func route[T any](ends ...string) *compose.GraphBranch {
	endNodes := make(map[string]bool, len(ends))
	for _, e := range ends {
		endNodes[e] = true
	}
	return compose.NewStreamGraphBranch(func(ctx context.Context, in *schema.StreamReader[T]) (string, error) {
		in.Close()
		var next string
		err := withState(ctx, func(st *runState) error { next = st.next; return nil })
		return next, err
	}, endNodes)
}

func (a *Agent) runHooks(ctx context.Context, point hooks.Point, st *runState) error {
	return a.cfg.Hooks.Run(hookCtx(ctx, point), point, &st.hs)
}

// begin builds the initial state and runs before_run.
func (a *Agent) begin(ctx context.Context, in []*schema.Message) ([]*schema.Message, error) {
	err := withState(ctx, func(st *runState) error {
		msgs := initialMessages(a.cfg.Instruction, in)
		counts := make(map[string]int, len(a.toolInfos))
		for _, t := range a.toolInfos {
			counts[t.Name] = 0
		}
		st.hs = hooks.State{
			Messages:       msgs,
			Tools:          slices.Clone(a.toolInfos),
			ContextTokens:  einoint.ContextTokens(msgs),
			ToolCallCounts: counts,
			Values:         map[string]any{},
		}
		st.next = nodeStep
		return a.runHooks(ctx, hooks.BeforeRun, st)
	})
	return nil, err
}

// step is the top of the loop: budget, before_llm, stop. Its output is the
// prompt, so whatever before_llm hooks left in State.Messages is exactly what
// the model sees, and (being the state) what later steps build on.
func (a *Agent) step(ctx context.Context, _ []*schema.Message) ([]*schema.Message, error) {
	var prompt []*schema.Message
	err := withState(ctx, func(st *runState) error {
		if st.hs.StepCount >= a.cfg.MaxSteps {
			st.hs.ExitReason = ExitMaxSteps
			st.next = nodeFinish
			a.cfg.Logger.WarnContext(ctx, "agent: step budget exhausted before a final answer", "agent", a.cfg.Name, "max_steps", a.cfg.MaxSteps)
			return nil
		}
		st.hs.Tools = slices.Clone(a.toolInfos)
		if err := a.runHooks(ctx, hooks.BeforeLLM, st); err != nil {
			return err
		}
		if st.hs.StopRun {
			st.hs.ExitReason = ExitStop
			st.next = nodeFinish
			return nil
		}
		prompt = slices.Clone(st.hs.Messages)
		st.next = nodeModel
		return nil
	})
	return prompt, err
}

// recordInvoke appends the model's reply to the conversation, accounts its
// usage and decides between a text exit and running tools.
func (a *Agent) recordInvoke(ctx context.Context, reply *schema.Message, _ ...any) (*schema.Message, error) {
	if reply == nil {
		return nil, errors.New("agent: the model returned no message")
	}
	err := withState(ctx, func(st *runState) error {
		st.hs.Messages = appendMessages(st.hs.Messages, reply)
		addUsage(&st.hs.TokenUsage, reply)
		// Replace, never keep: a reply without usage means the size of the
		// prompt is unknown now, and the old number is stale.
		st.hs.ContextTokens = einoint.UsageTokens(reply)
		st.hs.LastModelCallAt = time.Now()
		if len(a.toolInfos) == 0 || (len(reply.ToolCalls) == 0 && hasAnswerText(reply)) {
			st.next = nodeExit
		} else {
			st.next = nodeTool
		}
		return nil
	})
	return reply, err
}

// hasAnswerText reports whether reply says something: Content, or a text
// part of AssistantGenMultiContent or the deprecated MultiContent, where some
// providers put the whole answer. Reasoning is not an answer.
func hasAnswerText(reply *schema.Message) bool {
	if reply.Content != "" {
		return true
	}
	for _, p := range reply.AssistantGenMultiContent {
		if p.Type == schema.ChatMessagePartTypeText && p.Text != "" {
			return true
		}
	}
	for _, p := range reply.MultiContent {
		if p.Type == schema.ChatMessagePartTypeText && p.Text != "" {
			return true
		}
	}
	return false
}

// recordTransform is recordInvoke for streamed runs: it forwards each chunk
// as it arrives, then records the whole reply.
func (a *Agent) recordTransform(ctx context.Context, in *schema.StreamReader[*schema.Message], _ ...any) (*schema.StreamReader[*schema.Message], error) {
	defer in.Close()
	var sink func(*Event) error
	var step int
	if err := withState(ctx, func(st *runState) error {
		sink, step = st.sink, st.hs.StepCount+1
		return nil
	}); err != nil {
		return nil, err
	}
	var chunks []*schema.Message
	for {
		c, err := in.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if c == nil {
			continue
		}
		chunks = append(chunks, c)
		if sink != nil {
			if err := sink(&Event{Kind: EventMessageChunk, Step: step, Message: c}); err != nil {
				return nil, err
			}
		}
	}
	if len(chunks) == 0 {
		return nil, errors.New("agent: the model streamed no message")
	}
	reply, err := schema.ConcatMessages(chunks)
	if err != nil {
		return nil, err
	}
	if reply, err = a.recordInvoke(ctx, reply); err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{reply}), nil
}

// onExit handles a text answer: the step counts, on_exit hooks run, and one
// of them may keep the run going by setting ContinueRun.
func (a *Agent) onExit(ctx context.Context, _ *schema.Message) ([]*schema.Message, error) {
	return nil, withState(ctx, func(st *runState) error {
		st.hs.StepCount++
		st.hs.ExitReason = ExitText
		st.next = nodeFinish
		if a.cfg.Hooks.Len(hooks.OnExit) == 0 {
			return nil
		}
		st.hs.ContinueRun = false
		if err := a.runHooks(ctx, hooks.OnExit, st); err != nil {
			return err
		}
		if st.hs.ContinueRun {
			st.hs.ContinueRun = false
			st.hs.ExitReason = ""
			st.next = nodeStep
		}
		return nil
	})
}

// beforeTool exposes the reply's calls as State.PendingToolCalls, runs
// before_tool, and passes on what is still pending.
func (a *Agent) beforeTool(ctx context.Context, reply *schema.Message) (*schema.Message, error) {
	var out *schema.Message
	err := withState(ctx, func(st *runState) error {
		st.hs.PendingToolCalls = slices.Clone(reply.ToolCalls)
		if err := a.runHooks(ctx, hooks.BeforeTool, st); err != nil {
			return err
		}
		msgs, err := alignPendingCalls(st.hs.Messages, st.hs.PendingToolCalls)
		if err != nil {
			return err
		}
		st.hs.Messages = msgs
		if len(st.hs.PendingToolCalls) == 0 {
			st.next = nodeSkipTools
			out = reply
			return nil
		}
		st.next = nodeTools
		out = msgs[len(msgs)-1]
		return nil
	})
	return out, err
}

// skipTools stands in for the tools node when before_tool hooks cleared every
// pending call (or the reply had neither text nor calls): after_tool still
// runs and the step still counts.
func skipTools(context.Context, *schema.Message) ([]*schema.Message, error) {
	return []*schema.Message{}, nil
}

// afterTool appends the tool results, counts the calls and runs after_tool.
func (a *Agent) afterTool(ctx context.Context, results []*schema.Message) ([]*schema.Message, error) {
	return nil, withState(ctx, func(st *runState) error {
		step := st.hs.StepCount + 1
		kept := make([]*schema.Message, 0, len(results))
		for _, r := range results {
			if r != nil {
				kept = append(kept, r)
			}
		}
		st.hs.Messages = appendMessages(st.hs.Messages, kept...)
		for _, c := range st.hs.PendingToolCalls {
			st.hs.ToolCallCounts[c.Function.Name]++
		}
		st.hs.PendingToolCalls = nil
		for _, r := range kept {
			if err := st.emit(&Event{Kind: EventToolResult, Step: step, Message: r}); err != nil {
				return err
			}
		}
		if err := a.runHooks(ctx, hooks.AfterTool, st); err != nil {
			return err
		}
		st.hs.StepCount++
		st.next = nodeStep
		return nil
	})
}

// finish runs after_run and snapshots the state into a Result.
func (a *Agent) finish(ctx context.Context, _ []*schema.Message) (*Result, error) {
	var res *Result
	err := withState(ctx, func(st *runState) error {
		if err := a.runHooks(ctx, hooks.AfterRun, st); err != nil {
			return err
		}
		hs := &st.hs
		res = &Result{
			Messages:       slices.Clone(hs.Messages),
			ExitReason:     hs.ExitReason,
			StepCount:      hs.StepCount,
			TokenUsage:     hs.TokenUsage,
			ContextTokens:  hs.ContextTokens,
			ToolCallCounts: hs.ToolCallCounts,
			Values:         hs.Values,
		}
		dropStaleUsage(res.Messages, hs.ContextTokens)
		if n := len(res.Messages); n > 0 {
			res.Message = res.Messages[n-1]
		}
		return nil
	})
	return res, err
}

// dropStaleUsage keeps a later run from trusting usage that no longer
// describes the conversation. When the run ended after a compaction with no
// model call since (a hook set StopRun, say), the last reply's usage
// predates the compaction while no marker follows it, so the next Run would
// read it as the prompt's size. Such a reply is replaced in messages by a
// copy without usage; the caller's messages are never modified.
func dropStaleUsage(messages []*schema.Message, contextTokens int) {
	usage := einoint.ContextTokens(messages)
	if usage == 0 || usage == contextTokens {
		return
	}
	// A known usage means the last assistant message carries it.
	last := len(messages) - 1
	for messages[last] == nil || messages[last].Role != schema.Assistant {
		last--
	}
	fixed := *messages[last]
	meta := *fixed.ResponseMeta
	meta.Usage = nil
	fixed.ResponseMeta = &meta
	messages[last] = &fixed
}

// Package agent is a ready-made Eino ReAct agent that runs a hooks.Registry at
// all six hook points and returns the conversation as it stands at the end of
// the run, compacted if a compaction hook compacted it, so a chat application
// can carry that history into its next turn.
//
// # Why a compose graph
//
// The agent is an Eino compose.Graph wired the ReAct way: a ChatModel node
// bound to the tools, a ToolsNode, and branches that loop from the tools back
// to the model until the model answers in text, with the run's state kept in
// Eino's graph-local state (compose.WithGenLocalState, compose.ProcessState).
// Model and tool calls therefore go through Eino's own nodes, with its
// callbacks, streaming and tool execution (parallel calls, unknown-tool
// handling), not through a hand-written loop.
//
// The two prebuilt agents were considered and rejected for this package:
//
//   - flow/agent/react keeps its state private, so the compacted conversation
//     could not be returned; its MessageRewriter cannot return an error; and a
//     text answer always ends the graph, so an on_exit hook could not continue
//     the run.
//   - The ADK ChatModelAgent has error-returning middleware, but it also ends
//     on the first text answer, re-adds its system message from Instruction on
//     every run (duplicating the one carried in a returned conversation), and
//     reports through an event stream rather than a final state.
//
// Both remain supported for people who already use them: package
// github.com/einocompact/einocompact/integration/eino adapts hooks to them.
// Here, each hook point is a node of the graph (or part of one) that returns
// errors normally, so a failing hook aborts the run with its error intact.
//
// # The run
//
// Run and Stream follow this loop (the hook points are hooks.Point):
//
//	build the state: Instruction as a system message unless the conversation
//	  already starts with one, then a copy of the caller's messages
//	before_run
//	while StepCount < MaxSteps:
//	    before_llm                      (State.Tools filled; compaction lives here)
//	    if StopRun: exit "stop"
//	    call the model with State.Messages and State.Tools; append its reply
//	    if the reply is text (or there are no tools):
//	        StepCount++; exit "text"; on_exit; if ContinueRun: loop again
//	    before_tool                     (State.PendingToolCalls = the reply's calls)
//	    run the pending calls; append their results (a failed call's
//	      result is "error: " and its error, see Config.AbortOnToolError)
//	    after_tool; StepCount++
//	otherwise exit "max_steps"
//	after_run; return the Result
//
// State.ContextTokens is the provider-reported size of the latest model call
// (see einoint.UsageTokens); a reply without usage sets it to 0, meaning
// unknown, so a compaction hook counts the whole conversation itself rather
// than trusting a number that no longer describes the prompt. At the start of
// a run it is derived from the conversation passed in (einoint.ContextTokens).
// A run that compacted after its last model reply returns that reply as a
// copy without usage, so the next run does not trust a number from before
// the compaction.
//
// State.LastModelCallAt is when the run's latest model reply arrived, set
// as the reply is recorded; it is zero until the run's first reply (a run
// keeps nothing of earlier runs: a before_run hook may set it from the
// application's records of the conversation).
//
// Hooks run with a ctx isolated from the run's callback handlers
// (einoint.IsolateCallbacks): a summarizer a hook calls does not appear to the
// agent's callbacks as the agent's model, nor in its stream.
//
// The caller's messages are never modified: the agent copies the slice, and
// hooks must replace messages rather than edit them (see hooks.State).
package agent

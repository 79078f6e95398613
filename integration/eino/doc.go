// Package einoint adds einocompact hooks, above all compaction, to Eino
// agents that you build yourself. (The directory is integration/eino; the
// package is named einoint so it does not shadow the eino module in imports.)
//
// Three adapters, one per way of building an agent:
//
//   - Middleware is an adk.ChatModelAgentMiddleware for an ADK
//     ChatModelAgent. It runs a hooks.Registry (or one hook) before every model
//     call in BeforeModelRewriteState, where a rewrite of the messages persists
//     for the rest of the run and an error aborts it; around tools in
//     WrapInvokableToolCall; and after_run in AfterAgent.
//   - InstallReact configures a flow/agent/react AgentConfig so a hook runs as
//     its MessageRewriter. The rewriter cannot return an error, so a failing
//     hook leaves a sentinel message that a wrapper around the agent's model
//     turns into the error of that model call, and so of the run; errors.Is
//     finds the hook's error. No panics cross Eino.
//   - IsolateCallbacks and IsolatedChatModel keep a summarizer's model call out
//     of the agent's callbacks and streams. Both adapters run hooks isolated.
//
// ContextTokens and UsageTokens turn the provider usage recorded on messages
// into hooks.State.ContextTokens, ignoring usage recorded before the latest
// compaction.
package einoint

// Package e2e holds end-to-end tests: real agents (package agent, an ADK
// ChatModelAgent with einoint.Middleware, a flow/agent/react agent with
// einoint.InstallReact) compacting real conversations with
// compaction.CompactionHook and compaction.SummarizationCompactor, talking
// over loopback HTTP to fake OpenAI endpoints (openaitest) through the
// production eino-ext client. The fake provider rejects orphan tool messages
// with HTTP 400, so any pairing mistake a compaction makes fails the run just
// as it would in production. It has no non-test code.
package e2e

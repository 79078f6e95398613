// Package bench measures einocompact next to Eino's own summarization
// middleware (adk/middlewares/summarization v0.9.21) on the same work.
//
// It holds what the micro-benchmarks and the long-run simulation share:
// deterministic synthetic conversations (Conversation) of any length with a
// realistic mix of roles, tool calls, code, JSON, logs and non-Latin text; the
// tool schemas an agent would send (Tools); a deterministic summarizer chat
// model whose simulated latency and output grow with its input (Summarizer);
// and the simulation itself (Simulate), which replays scripted tool-using
// trajectories through both strategies and reports what each one cost.
//
// Nothing here leaves the process or sleeps: latency is accounted, not
// waited for, so the numbers are reproducible on any machine. The one
// benchmark that goes through the eino-ext OpenAI client
// (BenchmarkCompactHTTP) talks to a loopback server of its own.
package bench

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
// Nothing here calls the network or sleeps: latency is accounted, not waited
// for, so the numbers are reproducible on any machine.
package bench

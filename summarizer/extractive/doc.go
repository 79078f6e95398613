// Package extractive is a chat model that summarizes without a model: it
// reads the transcript a compaction.SummarizationCompactor sends and writes
// the five-section summary the compactor asks for, using only what it can
// copy from the transcript.
//
// It needs no network, is deterministic, and its answer is always shorter, in
// code points, than the transcript it was given. That makes it the embedded
// default of the demo and the last step of a failover chain: when every real
// model is down, compaction still happens and the agent carries on.
//
// What goes where:
//
//   - Objective: the first line of each user message (the first request and the
//     latest ones when there are many).
//   - Decisions and constraints: user lines that state a rule or a choice
//     (must, should, don't, never, always, prefer, use, instead, avoid,
//     require), and the first line of system messages.
//   - Work completed: one bullet per tool call, "NAME(ARGS) -> first line of
//     the result", marked "[error]" and showing the error line when the result
//     reads as a failure (it starts with "error" in any case, or contains
//     "Error:", "failed", "FAIL", "panic:", "fatal:" or "Traceback"); and the
//     first line of each assistant message.
//   - Identifiers: what package identifiers extracts from the transcript
//     (the default extractors leave tool-call ids out; with extractors that
//     find them, they give way first under the cap).
//   - Unresolved: the last user request no assistant text answered, else the
//     last assistant text.
//
// Text copied from tool results (the outcome or error line of a tool call,
// the identifiers, and the digest a tiny transcript falls back to) is marked
// as data in the manner of Spotlighting (package internal/spotlight): free
// text goes between « and » with ˆ for each blank, so an instruction planted
// in a tool result does not read as one in the summary, a user message; a
// value without blanks (a path, a hash, a UUID, a URL) stays byte for byte.
// User, system and assistant lines are the conversation's own words and are
// copied as they are, and so are a call's arguments, which the agent wrote.
// The compactor opens a summary that quotes marked text with a one-line note
// saying what the marks mean.
//
// Earlier summaries in the transcript ("[conversation_summary]" entries) are
// folded in: their bullets join the matching new sections ahead of newer ones.
// Every section keeps its newest bullets up to a cap. If the result is still
// not shorter than the transcript, bullets whose text another section already
// shows go first, then the oldest bullets.
package extractive

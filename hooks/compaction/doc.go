// Package compaction keeps an agent's conversation inside its model's context
// window.
//
// Two questions are kept apart:
//
//   - When to compact is decided by CompactionHook, a hooks.Hook run before
//     every model call. It estimates the size of the next prompt (trusting the
//     provider's reported usage where it has one), compares it with
//     ContextWindow*CompactAt, and asks a Compactor to bring the conversation
//     down to ContextWindow*CompactTo.
//   - What to replace is decided by a Compactor. SummarizationCompactor replaces
//     the oldest, least useful parts of the conversation with summaries written
//     by a chat model, a few groups at a time, and never separates a tool call
//     from its results.
//
// Other compactors share the same contract: SlidingWindowCompactor drops the
// oldest turns and steps and leaves a note, ToolResultPruningCompactor
// replaces old large tool results with a placeholder, and Pipeline chains
// compactors until the target is met (cheap passes first, summarization
// last). Summaries keep exact identifiers through an identifier ledger (see
// LedgerConfig), and every triggered compaction produces a Report for an
// Observer, slog and Eino callback handlers.
//
// Sizes are measured by a TokenCounter over a plain-text rendering of the
// conversation (see Render). ApproximateTokenCounter divides code points by a
// ratio and charges attachments a flat price; it needs no tokenizer.
//
// Messages written by a compactor carry a Marker in
// schema.Message.Extra[MetaKey]; the marker, never the text, is what makes a
// message a summary.
package compaction

package plan

import "context"

// deepKey carries a deep compaction (compaction.Report.Deep) from a
// CompactionHook to its SummarizationCompactor, through the ctx of the
// Compact call (a Pipeline passes it on to its stages). A
// ToolResultPruningCompactor before a summarization stage reads it to leave
// the verbatim floor alone; other compactors ignore it and aim at the
// target.
type deepKey struct{}

// Deep is what a deep compaction asks: keep the newest Keep tokens
// verbatim and summarize the rest, unless that leaves the messages above
// Limit tokens (a floor so large that the next call would compact again at
// once); the compaction then goes on towards the target as usual.
type Deep struct{ Keep, Limit int }

// WithDeep returns ctx asking for the deep compaction d.
func WithDeep(ctx context.Context, d Deep) context.Context {
	return context.WithValue(ctx, deepKey{}, d)
}

// DeepOf returns the deep compaction ctx asks for, and whether it asks.
func DeepOf(ctx context.Context) (Deep, bool) {
	d, ok := ctx.Value(deepKey{}).(Deep)
	return d, ok
}

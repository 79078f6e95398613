package compactfx

// DefaultPrepareAt is compaction.prepare_at when a file does not set it: 0,
// off, so compactions are synchronous, as the Go zero value of
// compaction.HookConfig.PrepareAt is. Preparing in the background removes
// the stall at the trigger but, measured in docs/benchmarks.md, costs 2 to
// 10 % more of the agent's bill; a library does not spend that by default.
// docs/configuration.md (compaction.prepare_at) has the figures and the
// value to set, 0.45, for an agent that must not wait.
const DefaultPrepareAt = 0.0

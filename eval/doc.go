// Package eval measures how much a compacted conversation still knows.
//
// Corpus generates long agent trajectories from a seed, with facts planted
// where real agents meet them: paths, request ids, commit hashes, error
// strings and row counts in tool results (some on the first line, most deep
// inside), and decisions in user turns. Run replays each trajectory through
// a compactor the way a CompactionHook would (append a step, compact when the
// conversation passes CompactAt of the window, down to CompactTo) and
// reports, per trajectory:
//
//   - how many planted facts were in messages that compaction replaced, and
//     how many of those still appear verbatim in the final conversation;
//   - the same for every identifier package identifiers extracts from the
//     replaced messages, and for those the identifier ledger extracts (its
//     default extractors over each replaced message as the ledger renders
//     it): with the ledger on and a large enough cap, all of them survive;
//   - what the ledger reported (Round.Identifiers summed over the rounds):
//     found, kept by the summary as written, appended, dropped;
//   - tokens of the uncompacted and the final conversation, compactions and
//     summarizer rounds;
//   - with Config.Archive (through the hook), recall probes: each planted
//     fact of a replaced message answered from the final conversation alone
//     or by the recall tool over the archive, read blind or by search, with
//     the calls and tokens it took (Result.Recall).
//
// Everything is deterministic: the same seed gives the same table. The
// numbers in docs/fidelity.md come from TestFidelity, which compares the
// ledger off, at its defaults and at a cap tuned for the corpus;
// TestLedgerKeepsEveryIdentifier holds the tuned cap to 100%;
// TestRecallProbes writes the recall probes' table.
package eval

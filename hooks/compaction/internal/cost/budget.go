package cost

// The summary's output budget: the tokens the summarizer is asked to write
// for a round that replaces input tokens, a fixed part for the headings and
// a share of the input, capped. It counts the model's text alone: the
// identifier ledger's block and the summary's tags are appended by code
// after the reply, so they cost no output tokens and the model is given no
// room for them. The share and the cap were chosen from the measurements in
// docs/compaction.md (the summary's output budget): output is priced several
// times an input token, and with the cap of 512 the simulated bill of the
// cache-aligned strategy fell by 12 to 19 % (against the whole summary's
// planned size as max tokens) while the fidelity corpus through the hook
// kept 96.8 % of its identifiers; the next cheaper cap, 384, kept 95.8 %.
// With the deep floor at 20.2 % of the window (it was 21 % then) the
// defaults keep 96.5 %, a cap of 448 95.8 % and one of 384 95.2 %.
const (
	SummaryBase  = 64  // tokens for the headings
	SummaryShare = 6   // one token per SummaryShare input tokens replaced
	SummaryMax   = 512 // the cap
)

// SummaryBudget is the default budget of the summarizer's text for input
// tokens replaced, before any bound: SummaryBase plus 1/SummaryShare of the
// input, at most SummaryMax.
func SummaryBudget(input int) int {
	return min(SummaryBase+max(input, 0)/SummaryShare, SummaryMax)
}

package plan

import (
	"math"
	"sync"
)

// sizes learns how large the summarizer's summaries come out, from
// its actual replies: each round records the size of what it replaced and
// of the summary message put in its place (ledger block and tags included),
// both by the compaction's counter. The newest sizeMemory rounds are kept.
// With none, the estimate is the prior (Prior); with one,
// or with rounds all of about the same input size, it is their mean summary
// size; otherwise it is the least-squares line summary = fixed + ratio*input
// through them (fixed and ratio kept non-negative), which follows both the
// fixed part of a summary (its headings, its tags) and its growth with the
// input. One value serves all the runs that share the compactor.
type sizes struct {
	mu   sync.Mutex
	obs  [sizeMemory]sizeObs
	n    int // observations held, at most sizeMemory
	next int // where the next observation goes
}

// sizeMemory bounds what sizes remembers, so that a summarizer whose
// behaviour changes (another model after a failover) is followed quickly.
const sizeMemory = 16

type sizeObs struct{ input, summary float64 }

// observe records one round: input tokens replaced by a summary of summary
// tokens. Rounds the summarizer refused (not smaller) count too: they are
// the evidence that small inputs do not pay.
func (s *sizes) observe(input, summary int) {
	if input <= 0 || summary <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.obs[s.next] = sizeObs{float64(input), float64(summary)}
	s.next = (s.next + 1) % sizeMemory
	s.n = min(s.n+1, sizeMemory)
}

// observed reports whether any round has been recorded.
func (s *sizes) observed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n > 0
}

// estimate returns the expected summary size for input tokens, and whether
// it rests on observed rounds rather than on prior alone.
func (s *sizes) estimate(prior, input int) (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n == 0 {
		return prior, false
	}
	fixed, ratio := s.fitLocked()
	return max(int(math.Ceil(fixed+ratio*float64(input))), 1), true
}

// fitLocked fits summary = fixed + ratio*input to the observations.
func (s *sizes) fitLocked() (fixed, ratio float64) {
	obs := s.obs[:s.n]
	var si, ss, sii, sis float64
	lo, hi := math.Inf(1), 0.0
	for _, o := range obs {
		si += o.input
		ss += o.summary
		sii += o.input * o.input
		sis += o.input * o.summary
		lo, hi = min(lo, o.input), max(hi, o.input)
	}
	n := float64(len(obs))
	meanS := ss / n
	// Inputs within a factor 1.5 of each other say nothing reliable about
	// growth; the mean summary size is then the best guess.
	if hi < 1.5*lo {
		return meanS, 0
	}
	den := n*sii - si*si
	ratio = (n*sis - si*ss) / den
	fixed = (ss - ratio*si) / n
	switch {
	case ratio < 0:
		return meanS, 0
	case fixed < 0:
		return 0, sis / sii
	}
	return fixed, ratio
}

// Prior is the expected summary size before any reply has been seen, for a
// compaction to target tokens: Config.Approx when set, else the model's text
// at its output budget (Config.OutputBudget) plus the identifier ledger's
// block at its cap (Config.LedgerCap). A first round that expects less lands above the
// target and needs a second round, which reads more than the first one
// taking a little extra would have. The learned sizes that replace the prior
// measure the whole summary message in the same way, text, ledger block and
// tags.
func (p *Planner) Prior(input, target int) int {
	if p.cfg.Approx > 0 {
		return p.cfg.Approx
	}
	ledger := 0
	if p.cfg.LedgerCap != nil {
		ledger = p.cfg.LedgerCap(target)
	}
	return p.cfg.OutputBudget(input) + ledger
}

// Estimate is the size, in the compaction counter's tokens, that the summary
// of input tokens of conversation is expected to have once it is in place,
// in a compaction to target tokens.
func (p *Planner) Estimate(input, target int) int {
	est, _ := p.sizes.estimate(p.Prior(input, target), input)
	return est
}

// pays reports whether replacing input tokens with their summary is expected
// to make the conversation smaller. Only observed rounds can say no: the
// configured Config.Approx guides how much a round takes, but is
// no evidence that a small round fails.
func (p *Planner) pays(input, target int) bool {
	est, observed := p.sizes.estimate(p.Prior(input, target), input)
	return !observed || input > est
}

// Observe records one round that replaced input tokens by a summary of
// summary tokens, as Learn does once it has measured the summary.
func (p *Planner) Observe(input, summary int) { p.sizes.observe(input, summary) }

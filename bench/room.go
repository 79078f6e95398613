package bench

import (
	"slices"
)

// Room is how much room a strategy's compactions bought in one run (issue
// 32 item 5): how often it compacted, and how far below the trigger each
// compaction left the coming call, in steps of the trajectory's median
// growth. A compaction that leaves the call within a step of the trigger
// is paid for again at the next tool result.
type Room struct {
	Compactions int
	Calls       int
	// PerHundredCalls is Compactions per 100 model calls.
	PerHundredCalls float64
	// Growth is the median growth of the uncompacted prompt from one call
	// to the next, in tokens (StepGrowth).
	Growth float64
	// MedianSteps and MinSteps are the median and least room bought, in
	// steps of Growth: (trigger - the prompt after the compaction) / Growth.
	// 0 when nothing was compacted.
	MedianSteps, MinSteps float64
	// UnderTwo counts the compactions that bought less than two steps.
	UnderTwo int
}

// StepGrowth is the median growth, in tokens, of res's prompt had nothing
// been compacted (StepRecord.Before) from one model call to the next;
// 0 with fewer than two steps.
func StepGrowth(res *SimResult) float64 {
	var d []float64
	for i := 1; i < len(res.Steps); i++ {
		d = append(d, float64(res.Steps[i].Before-res.Steps[i-1].Before))
	}
	return medianOf(d)
}

// RoomOf measures res's compactions against trigger (tokens of the whole
// prompt) in steps of growth tokens.
func RoomOf(res *SimResult, trigger int, growth float64) Room {
	rm := Room{Compactions: len(res.Compactions), Calls: len(res.Steps), Growth: growth}
	if rm.Calls > 0 {
		rm.PerHundredCalls = 100 * float64(rm.Compactions) / float64(rm.Calls)
	}
	if growth <= 0 || rm.Compactions == 0 {
		return rm
	}
	rooms := make([]float64, 0, rm.Compactions)
	for _, c := range res.Compactions {
		s := float64(trigger-c.After) / growth
		rooms = append(rooms, s)
		if s < 2 {
			rm.UnderTwo++
		}
	}
	rm.MedianSteps, rm.MinSteps = medianOf(rooms), slices.Min(rooms)
	return rm
}

// medianOf is the median of vs (the mean of the middle two when their
// number is even), 0 for none.
func medianOf(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(vs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

package main

import (
	"fmt"
	"strings"

	"github.com/einocompact/einocompact/bench"
)

// blockRoom is the block of docs/benchmarks.md with the room compactions
// bought (issue 32 item 5).
const blockRoom = "room"

// roomReport tells, per shape and strategy of the simulation, how often
// each compacted and how much room below the trigger each compaction
// bought, in steps of the trajectory's median growth (bench.RoomOf).
func roomReport(all []shapeRuns, window int) string {
	trigger := int(float64(window) * 0.7)
	var b strings.Builder
	fmt.Fprintf(&b, "Room bought: the trigger (%d tokens, 0.7 of the window) less the prompt after a compaction, in steps of the trajectory's median growth "+
		"from one call to the next had nothing been compacted (`bench.RoomOf`). Medians over the %d seeds; the least and the count under two steps over all of them. "+
		"Target: no compaction buys less than two steps where the window allows it.\n\n", trigger, len(simSeeds))
	b.WriteString("| shape | strategy | median step growth | compactions per 100 calls | room bought, median (steps) | room bought, least (steps) | compactions under two steps |\n|---|---|---:|---:|---:|---:|---:|\n")
	for _, sr := range all {
		if len(sr.runs) == 0 {
			continue
		}
		for i, first := range sr.runs[0] {
			var growth, per, med []float64
			least, under, have := 0.0, 0, false
			for _, res := range sr.runs {
				g := bench.StepGrowth(res[0])
				rm := bench.RoomOf(res[i], trigger, g)
				growth, per, med = append(growth, g), append(per, rm.PerHundredCalls), append(med, rm.MedianSteps)
				if rm.Compactions > 0 && (!have || rm.MinSteps < least) {
					least, have = rm.MinSteps, true
				}
				under += rm.UnderTwo
			}
			fmt.Fprintf(&b, "| %s | %s | %.0f | %.1f | %.1f | %.1f | %d |\n", sr.shape, first.Strategy, median(growth), median(per), median(med), least, under)
		}
	}
	return b.String()
}

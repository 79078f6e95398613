package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/einocompact/einocompact/bench"
)

const blockReplicas = "replicas"

// replicaConversations is how many conversations the replica simulation
// serves at once.
const replicaConversations = 8

// runReplicas runs the replica simulation (bench.SimulateReplicas) for 1,
// 2, 4 and 8 replicas, without and with a shared store, prints its table
// and, with docs, writes it into benchmarks.md.
func runReplicas(steps, window int, prepareAt float64, docs string, stdout io.Writer) error {
	ctx := context.Background()
	var b strings.Builder
	fmt.Fprintf(&b, "%d conversations of the %s shape, %d model calls each, %d-token window, prepare_at %v, turns routed to a replica at random (seed 1).\n\n",
		replicaConversations, bench.ShapeManySmall, steps, window, prepareAt)
	b.WriteString("| replicas | shared store | compactions | of which stalled | summarizer calls per conversation | mean stall per compaction | calls vs one process | stall vs one process |\n")
	b.WriteString("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	var one *bench.ReplicaResult
	for _, replicas := range []int{1, 2, 4, 8} {
		for _, shared := range []bool{false, true} {
			r, err := bench.SimulateReplicas(ctx, bench.ReplicaConfig{Shape: bench.ShapeManySmall, Steps: steps, Window: window,
				Conversations: replicaConversations, Replicas: replicas, Shared: shared, PrepareAt: prepareAt, Seed: 1})
			if err != nil {
				return err
			}
			if one == nil {
				one = r
			}
			stalled := 0
			for _, s := range r.Stalls {
				if s > 0 {
					stalled++
				}
			}
			fmt.Fprintf(&b, "| %d | %s | %d | %d | %.2f | %.2f s | %s | %s |\n", replicas, map[bool]string{false: "no", true: "yes"}[shared],
				r.Compactions, stalled, r.CallsPerConversation(), r.MeanStall().Seconds(),
				ratio(r.CallsPerConversation(), one.CallsPerConversation()), ratio(r.MeanStall().Seconds(), one.MeanStall().Seconds()))
		}
	}
	fmt.Fprintln(stdout, b.String())
	if docs == "" {
		return nil
	}
	return updateDoc(docPath(docs), blockReplicas, b.String())
}

func ratio(got, base float64) string {
	if base == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", got/base)
}

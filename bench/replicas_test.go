package bench

import (
	"context"
	"testing"
)

// TestReplicaStoreKeepsOneProcessFigures: turns of a conversation routed at
// random over four replicas compact like one process when the replicas
// share a store (the same summarizer calls and stall, within 5 %), and
// without it each replica that did not prepare a conversation's compaction
// summarizes it again.
func TestReplicaStoreKeepsOneProcessFigures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	run := func(replicas int, shared bool) *ReplicaResult {
		r, err := SimulateReplicas(ctx, ReplicaConfig{Shape: ShapeManySmall, Steps: 80, Window: 16000, Conversations: 3,
			Replicas: replicas, Shared: shared, PrepareAt: 0.45, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	one, shared, apart := run(1, false), run(4, true), run(4, false)
	if one.Compactions == 0 {
		t.Fatal("one process made no compaction; the trajectory is too short")
	}
	within := func(got, want float64) bool { return got <= want*1.05 && got >= want*0.95 }
	if !within(shared.CallsPerConversation(), one.CallsPerConversation()) {
		t.Errorf("shared store, 4 replicas: %.2f summarizer calls per conversation, one process %.2f", shared.CallsPerConversation(), one.CallsPerConversation())
	}
	if shared.MeanStall() > one.MeanStall()+one.MeanStall()/20 {
		t.Errorf("shared store, 4 replicas: mean stall %v, one process %v", shared.MeanStall(), one.MeanStall())
	}
	if apart.CallsPerConversation() <= one.CallsPerConversation() || apart.MeanStall() <= one.MeanStall() {
		t.Errorf("no store, 4 replicas: %.2f calls per conversation, mean stall %v; one process %.2f, %v: want more of both",
			apart.CallsPerConversation(), apart.MeanStall(), one.CallsPerConversation(), one.MeanStall())
	}
}

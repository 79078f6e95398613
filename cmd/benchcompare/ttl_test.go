package main

import (
	"context"
	"strings"
	"testing"
)

// The TTL bill runs every strategy on every shape and prints its rows and
// targets.
func TestTTLReport(t *testing.T) {
	t.Parallel()
	runs, costs, err := runTTL(context.Background(), 60, 8000, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := ttlReport(runs, costs, 60, 8000)
	for _, want := range append(ttlStrategies, "<= 0.75", "what the cold rule saved") {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

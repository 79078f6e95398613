package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"
)

// With --summarizer-latency the summarizer takes that long per call, and
// with --model-latency the replayed model too: the report shows each
// compaction's wait, and the prepared ones waited less than a summarizer
// call, since the agent kept working while they were written.
func TestDemoLatencyFlags(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--summarizer-latency", "300ms", "--model-latency", "150ms"}, &stdout, &stderr, noEnv); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	out := stdout.String()
	if !strings.Contains(out, "300ms per call (--summarizer-latency)") {
		t.Errorf("the header does not name the summarizer latency:\n%s", out)
	}
	line := regexp.MustCompile(`↳ compaction #\d+ .*summarizer ([0-9.]+)ms.*; waited ([0-9.]+)ms( \(prepared\))?`)
	prepared, synchronous := 0, 0
	for _, m := range line.FindAllStringSubmatch(out, -1) {
		summarizer, _ := time.ParseDuration(m[1] + "ms")
		waited, _ := time.ParseDuration(m[2] + "ms")
		if summarizer < 300*time.Millisecond {
			t.Errorf("summarizer took %v with --summarizer-latency 300ms: %s", summarizer, m[0])
		}
		if m[3] == "" {
			synchronous++
			if waited < 300*time.Millisecond {
				t.Errorf("a synchronous compaction waited %v, less than the summarizer call: %s", waited, m[0])
			}
			continue
		}
		prepared++
		if waited >= summarizer {
			t.Errorf("a prepared compaction waited %v, as long as the summarizer's %v: %s", waited, summarizer, m[0])
		}
	}
	if prepared == 0 {
		t.Errorf("no compaction was prepared in the background:\n%s", out)
	}
}

func TestDemoLatencyFlagsRejectNegative(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--model-latency", "-1s"}, &stdout, &stderr, noEnv); code != 2 {
		t.Fatalf("exit %d, want 2; stderr:\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "--model-latency") {
		t.Errorf("stderr does not name the flag: %s", stderr.String())
	}
}

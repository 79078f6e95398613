package main

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// microRuns holds every run of every benchmark in a `go test -bench` output,
// keyed by the benchmark's name without the GOMAXPROCS suffix.
type microRuns map[string][]microRun

type microRun struct {
	ns, mbps, bytes, allocs float64
	// outside is compact-ns/op: BenchmarkCompact's time per operation
	// outside the summarizer's Generate.
	outside float64
}

var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+(.*)$`)

// parseMicro reads `go test -bench -benchmem` output. A FAIL line or a
// panic in it is an error, so a broken benchmark run never makes a table.
func parseMicro(r io.Reader) (microRuns, error) {
	runs := microRuns{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "FAIL") || strings.HasPrefix(line, "--- FAIL") || strings.HasPrefix(line, "panic:") {
			return nil, fmt.Errorf("benchmark output reports a failure: %q", line)
		}
		m := benchLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		var run microRun
		f := strings.Fields(m[2])
		for i := 0; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			switch f[i+1] {
			case "ns/op":
				run.ns = v
			case "MB/s":
				run.mbps = v
			case "B/op":
				run.bytes = v
			case "allocs/op":
				run.allocs = v
			case "compact-ns/op":
				run.outside = v
			}
		}
		runs[m[1]] = append(runs[m[1]], run)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("no benchmark results found")
	}
	return runs, nil
}

// median of the field pick over the runs of name; ok is false when there are none.
func (mr microRuns) median(name string, pick func(microRun) float64) (float64, bool) {
	rs := mr[name]
	if len(rs) == 0 {
		return 0, false
	}
	vs := make([]float64, len(rs))
	for i, r := range rs {
		vs[i] = pick(r)
	}
	return median(vs), true
}

func median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func ns(r microRun) float64      { return r.ns }
func mbps(r microRun) float64    { return r.mbps }
func allocs(r microRun) float64  { return r.allocs }
func outside(r microRun) float64 { return r.outside }

// fmtDuration prints nanoseconds with a unit that keeps three digits.
func fmtDuration(v float64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%.2f s", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%.2f ms", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.2f µs", v/1e3)
	}
	return fmt.Sprintf("%.0f ns", v)
}

var microSizes = []int{100, 1000, 10000}

// microReport renders the micro-benchmark tables and targets as Markdown.
func microReport(mr microRuns) string {
	var b strings.Builder
	runsOf := func(name string) int { return len(mr[name]) }
	fmt.Fprintf(&b, "Medians of %d runs each.\n\n", runsOf("BenchmarkCounter/n=100"))

	b.WriteString("#### Per model call, nothing to compact\n\n")
	b.WriteString("| provider usage | messages | einocompact CompactionHook | Eino BeforeModelRewriteState | ratio (einocompact / Eino) | allocs (einocompact / Eino) |\n|---|---:|---:|---:|---:|---:|\n")
	worstWith, worstWithout := 0.0, 0.0
	for _, usage := range []bool{true, false} {
		for _, n := range microSizes {
			base := fmt.Sprintf("BenchmarkNoTrigger/usage=%v/n=%d/", usage, n)
			ours, ok1 := mr.median(base+"einocompact", ns)
			theirs, ok2 := mr.median(base+"eino", ns)
			if !ok1 || !ok2 {
				continue
			}
			oa, _ := mr.median(base+"einocompact", allocs)
			ea, _ := mr.median(base+"eino", allocs)
			label := "present"
			if !usage {
				label = "absent"
				worstWithout = max(worstWithout, ours/theirs)
			} else {
				worstWith = max(worstWith, ours/theirs)
			}
			fmt.Fprintf(&b, "| %s | %d | %s | %s | %.2f | %.0f / %.0f |\n", label, n, fmtDuration(ours), fmtDuration(theirs), ours/theirs, oa, ea)
		}
	}

	b.WriteString("\n#### Approximate counter throughput (message text, no usage)\n\n")
	b.WriteString("| messages | time per count | MB/s |\n|---:|---:|---:|\n")
	minMBps := 0.0
	for i, n := range microSizes {
		name := fmt.Sprintf("BenchmarkCounter/n=%d", n)
		t, ok := mr.median(name, ns)
		if !ok {
			continue
		}
		s, _ := mr.median(name, mbps)
		if i == 0 || s < minMBps {
			minMBps = s
		}
		fmt.Fprintf(&b, "| %d | %s | %.0f |\n", n, fmtDuration(t), s)
	}

	b.WriteString("\n#### One planning round (no model call), and a full compaction with a summarizer that answers at once\n\n")
	b.WriteString("| messages | plan | plan growth (vs 10x fewer) | einocompact compaction | Eino compaction | ratio | einocompact outside the summarizer | Eino outside the summarizer | ratio outside |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	worstGrowth, worstOutside := 0.0, 0.0
	prev := 0.0
	for _, n := range microSizes {
		p, ok := mr.median(fmt.Sprintf("BenchmarkPlan/n=%d", n), ns)
		if !ok {
			continue
		}
		growth := "–"
		if prev > 0 {
			growth = fmt.Sprintf("%.1fx", p/prev)
			worstGrowth = max(worstGrowth, p/prev)
		}
		prev = p
		oursName, theirsName := fmt.Sprintf("BenchmarkCompact/n=%d/einocompact", n), fmt.Sprintf("BenchmarkCompact/n=%d/eino", n)
		cells := []string{"–", "–", "–", "–", "–", "–"}
		ours, ok1 := mr.median(oursName, ns)
		theirs, ok2 := mr.median(theirsName, ns)
		if ok1 && ok2 {
			cells[0], cells[1], cells[2] = fmtDuration(ours), fmtDuration(theirs), fmt.Sprintf("%.1f", ours/theirs)
		}
		ourOut, _ := mr.median(oursName, outside)
		theirOut, _ := mr.median(theirsName, outside)
		if ourOut > 0 && theirOut > 0 {
			cells[3], cells[4], cells[5] = fmtDuration(ourOut), fmtDuration(theirOut), fmt.Sprintf("%.1f", ourOut/theirOut)
			worstOutside = max(worstOutside, ourOut/theirOut)
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s |\n", n, fmtDuration(p), growth, strings.Join(cells, " | "))
	}

	b.WriteString("\n#### Targets\n\n| target | measured | met |\n|---|---|---|\n")
	target := func(name, measured string, ok, measuredAtAll bool) {
		if !measuredAtAll {
			fmt.Fprintf(&b, "| %s | not measured in this run | – |\n", name)
			return
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", name, measured, yes(ok))
	}
	target("with usage, the non-triggering hook is no slower than Eino's middleware at any size",
		fmt.Sprintf("worst ratio %.2f", worstWith), worstWith <= 1, worstWith > 0)
	target("without usage, the non-triggering hook costs at most 2x Eino's middleware at any size",
		fmt.Sprintf("worst ratio %.2f", worstWithout), worstWithout <= 2, worstWithout > 0)
	target("without usage, code points are counted at >= 1 GB/s of message text",
		fmt.Sprintf("slowest median %.0f MB/s", minMBps), minMBps >= 1000, minMBps > 0)
	target("planning is linear: 10x messages, at most ~12x time",
		fmt.Sprintf("worst growth %.1fx", worstGrowth), worstGrowth <= 12, worstGrowth > 0)
	target("a compaction costs at most 10x Eino's middleware outside the summarizer at any size",
		fmt.Sprintf("worst ratio %.1f", worstOutside), worstOutside <= 10, worstOutside > 0)
	return b.String()
}

func yes(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}

package main

import (
	"strings"
	"testing"
)

const microSample = `goos: linux
BenchmarkCounter/n=100-2         	   10000	     30000 ns/op	3000.00 MB/s	       8 B/op	       1 allocs/op
BenchmarkCounter/n=100-2         	   10000	     10000 ns/op	9000.00 MB/s	       8 B/op	       1 allocs/op
BenchmarkCounter/n=100-2         	   10000	     20000 ns/op	4500.00 MB/s	       8 B/op	       1 allocs/op
BenchmarkNoTrigger/usage=true/n=100/einocompact-2 	 1000	 500 ns/op	 176 B/op	 5 allocs/op
BenchmarkNoTrigger/usage=true/n=100/eino-2        	 1000	 1000 ns/op	 640 B/op	 13 allocs/op
BenchmarkNoTrigger/usage=false/n=100/einocompact-2 	 1000	 3000 ns/op	 176 B/op	 3 allocs/op
BenchmarkNoTrigger/usage=false/n=100/eino-2        	 1000	 1200 ns/op	 640 B/op	 13 allocs/op
BenchmarkPlan/n=100-2  	 100	 1000 ns/op
BenchmarkPlan/n=1000-2 	 100	 15000 ns/op
BenchmarkCompact/n=100/einocompact-2 	 100	 90000 ns/op	 80000 compact-ns/op	 1000 B/op	 10 allocs/op
BenchmarkCompact/n=100/eino-2 	 100	 30000 ns/op	 4000 compact-ns/op	 1000 B/op	 10 allocs/op
BenchmarkCompact/n=1000/einocompact-2 	 100	 900000 ns/op	 700000 compact-ns/op	 1000 B/op	 10 allocs/op
BenchmarkCompact/n=1000/eino-2 	 100	 300000 ns/op	 100000 compact-ns/op	 1000 B/op	 10 allocs/op
PASS
ok  	github.com/einocompact/einocompact/bench	1.0s
`

func TestParseMicroMedians(t *testing.T) {
	t.Parallel()
	runs, err := parseMicro(strings.NewReader(microSample))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := runs.median("BenchmarkCounter/n=100", ns); got != 20000 {
		t.Errorf("median ns = %v, want 20000 (middle of 10000, 20000, 30000)", got)
	}
	if got, _ := runs.median("BenchmarkCounter/n=100", mbps); got != 4500 {
		t.Errorf("median MB/s = %v, want 4500", got)
	}
	if got, _ := runs.median("BenchmarkNoTrigger/usage=true/n=100/eino", allocs); got != 13 {
		t.Errorf("allocs = %v, want 13", got)
	}
	report := microReport(runs)
	for _, want := range []string{
		"| present | 100 | 500 ns | 1.00 µs | 0.50 | 5 / 13 |",
		"worst ratio 0.50 | yes",
		"| absent | 100 | 3.00 µs | 1.20 µs | 2.50 | 3 / 13 |",
		"2x Eino's middleware at any size | worst ratio 2.50 | **no**",
		"slowest median 4500 MB/s | yes",
		"worst growth 15.0x | **no**",
		"| 100 | 1.00 µs | – | 90.00 µs | 30.00 µs | 3.0 | 80.00 µs | 4.00 µs | 20.0 |",
		"| 1000 | 15.00 µs | 15.0x | 900.00 µs | 300.00 µs | 3.0 | 700.00 µs | 100.00 µs | 7.0 |",
		"outside the summarizer at any size | worst ratio 20.0 | **no**",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
}

func TestParseMicroRejectsFailures(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{
		microSample + "--- FAIL: BenchmarkPlan/n=10000\n",
		microSample + "FAIL\tgithub.com/einocompact/einocompact/bench\n",
		"PASS\nok x 1s\n",
	} {
		if _, err := parseMicro(strings.NewReader(bad)); err == nil {
			t.Errorf("no error for output ending %q", bad[len(bad)-40:])
		}
	}
}

func TestMedianEven(t *testing.T) {
	t.Parallel()
	if got := median([]float64{4, 1, 3, 2}); got != 2.5 {
		t.Errorf("median = %v, want 2.5", got)
	}
}

func TestMicroReportSaysWhatWasNotMeasured(t *testing.T) {
	t.Parallel()
	runs, err := parseMicro(strings.NewReader("BenchmarkPlan/n=100-2 \t 100\t 1000 ns/op\n"))
	if err != nil {
		t.Fatal(err)
	}
	report := microReport(runs)
	if strings.Count(report, "not measured in this run") != 5 {
		t.Errorf("want five unmeasured targets:\n%s", report)
	}
}

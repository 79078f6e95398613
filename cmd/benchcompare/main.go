// Command benchcompare reports how einocompact compares with Eino's own
// summarization middleware (adk/middlewares/summarization v0.9.21).
//
// With -micro FILE it reads the output of
//
//	go test -run='^$' -bench=. -benchmem -count=N ./bench/
//
// and prints the medians as tables with the targets of issue 7. With -sim it
// replays synthetic tool-using trajectories through both strategies and
// prints what each cost, led by the user's bill: every request of every
// strategy priced under provider cache models, with the targets of issue
// 23 (-bill prints that part alone). With -docs DIR it also rewrites the generated
// blocks of DIR/benchmarks.md and writes the context-size plot to DIR.
// Nothing here uses the network or sleeps.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchcompare:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("benchcompare", flag.ContinueOnError)
	micro := fs.String("micro", "", "`file` of go test -bench output to summarize (- for stdin)")
	sim := fs.Bool("sim", false, "run the long-run cost simulation and the bill")
	billOnly := fs.Bool("bill", false, "run only the bill of the simulation (print only; faster than -sim)")
	compactTo := fs.Float64("compact-to", 0, "with -bill: the hook's compact_to for einocompact's strategies (0: the default, 0.4); Eino's middleware has no target")
	steps := fs.Int("steps", 300, "model calls per simulated trajectory")
	window := fs.Int("window", 32000, "context window in tokens for the simulation")
	prepareAt := fs.Float64("prepare-at", defaultPrepareAt, "PrepareAt of the simulation's third strategy, einocompact preparing compactions in the background; 0 leaves it out")
	docs := fs.String("docs", "", "`dir`ectory whose benchmarks.md (and plot) to update; empty: print only")
	replicas := fs.Bool("replicas", false, "run the replica simulation: 1, 2, 4, 8 replicas with turns routed at random, without and with a shared store")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *micro == "" && !*sim && !*billOnly && !*replicas {
		return fmt.Errorf("nothing to do: give -micro FILE, -sim, -bill or -replicas")
	}
	if *replicas {
		if *micro != "" || *sim || *billOnly {
			return fmt.Errorf("-replicas runs alone")
		}
		if *steps < 1 || *window < 1000 || !(*prepareAt > 0.4 && *prepareAt < 0.7) {
			return fmt.Errorf("-replicas needs -steps >= 1, -window >= 1000 and -prepare-at between 0.4 and 0.7, got %d, %d, %v", *steps, *window, *prepareAt)
		}
		return runReplicas(*steps, *window, *prepareAt, *docs, stdout)
	}
	if *billOnly && (*sim || *docs != "") {
		return fmt.Errorf("-bill prints the bill alone; -sim (with -docs) runs it with the simulation")
	}
	if *compactTo != 0 && (!*billOnly || *compactTo < 0 || *compactTo >= 0.7) {
		return fmt.Errorf("-compact-to goes with -bill and must be between 0 and compact_at 0.7, got %v", *compactTo)
	}
	if *micro != "" {
		if err := runMicro(*micro, *docs, stdout); err != nil {
			return err
		}
	}
	if *sim || *billOnly {
		if *steps < 1 || *window < 1000 {
			return fmt.Errorf("-steps must be >= 1 and -window >= 1000, got %d and %d", *steps, *window)
		}
		if *prepareAt != 0 && !(*prepareAt > 0.4 && *prepareAt < 0.7) {
			return fmt.Errorf("-prepare-at must be 0 or between compact_to 0.4 and compact_at 0.7, got %v", *prepareAt)
		}
		if *billOnly {
			if *prepareAt != 0 && *compactTo != 0 && *prepareAt <= *compactTo {
				return fmt.Errorf("-prepare-at %v must be above -compact-to %v", *prepareAt, *compactTo)
			}
			return runBillOnly(*steps, *window, *prepareAt, *compactTo, stdout)
		}
		if err := runSimulation(*steps, *window, *prepareAt, *docs, stdout); err != nil {
			return err
		}
	}
	return nil
}

func runMicro(path, docs string, stdout io.Writer) error {
	var in io.Reader = os.Stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	runs, err := parseMicro(in)
	if err != nil {
		return err
	}
	report := microReport(runs)
	fmt.Fprintln(stdout, report)
	if docs == "" {
		return nil
	}
	return updateDoc(docPath(docs), blockMicro, "Measured on "+machine()+".\n\n"+report)
}

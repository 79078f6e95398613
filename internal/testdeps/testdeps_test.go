package testdeps

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// fakeT records what program does to its test. Fatalf and Skipf end the
// goroutine, as testing.T's do.
type fakeT struct {
	testing.TB
	name                  string
	failed, skipped       bool
	fatal, skip, errorMsg string
}

func (f *fakeT) Helper()      {}
func (f *fakeT) Name() string { return f.name }
func (f *fakeT) Errorf(format string, args ...any) {
	f.failed, f.errorMsg = true, fmt.Sprintf(format, args...)
}

func (f *fakeT) Fatalf(format string, args ...any) {
	f.failed, f.fatal = true, fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (f *fakeT) Skipf(format string, args ...any) {
	f.skipped, f.skip = true, fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// run calls program for f in a goroutine of its own and returns the path
// it gave, empty when f ended.
func run(f *fakeT, command, pkg string, lookPath func(string) (string, error), env map[string]string) string {
	var path string
	done := make(chan struct{})
	go func() {
		defer close(done)
		path = program(f, command, pkg, lookPath, func(k string) string { return env[k] })
	}()
	<-done
	return path
}

func TestProgram(t *testing.T) {
	t.Parallel()
	const command, pkg, found = "redis-server", "redis-server-pkg", "/usr/bin/redis-server"
	installed := func(name string) (string, error) {
		if name != command {
			return "", fmt.Errorf("looked up %q, not %q", name, command)
		}
		return found, nil
	}
	missing := func(string) (string, error) { return "", errors.New("executable file not found in $PATH") }
	tests := []struct {
		name       string
		lookPath   func(string) (string, error)
		ci, logged bool
		wantFail   bool
		wantSkip   bool
	}{
		{name: "installed", lookPath: installed, logged: true},
		{name: "installed in CI", lookPath: installed, ci: true, logged: true},
		{name: "missing in CI fails", lookPath: missing, ci: true, logged: true, wantFail: true},
		{name: "missing elsewhere skips and records", lookPath: missing, logged: true, wantSkip: true},
		{name: "missing without a log skips", lookPath: missing, wantSkip: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			log := filepath.Join(t.TempDir(), "skipped")
			env := map[string]string{}
			if tt.ci {
				env["CI"] = "true"
			}
			if tt.logged {
				env[SkipLogEnv] = log
			}
			f := &fakeT{name: "TestSomething/" + tt.name}
			path := run(f, command, pkg, tt.lookPath, env)
			if f.failed != tt.wantFail || f.skipped != tt.wantSkip {
				t.Fatalf("failed %v, skipped %v; want %v, %v (fatal %q, skip %q, error %q)",
					f.failed, f.skipped, tt.wantFail, tt.wantSkip, f.fatal, f.skip, f.errorMsg)
			}
			if !tt.wantFail && !tt.wantSkip && path != found {
				t.Errorf("path %q, want %q", path, found)
			}
			for _, msg := range []string{f.fatal, f.skip} {
				if msg != "" && (!strings.Contains(msg, command) || !strings.Contains(msg, pkg)) {
					t.Errorf("%q does not name the program %q and its package %q", msg, command, pkg)
				}
			}
			got, err := os.ReadFile(log)
			if tt.wantSkip && tt.logged {
				want := command + "\t" + pkg + "\tinternal/testdeps." + f.name + "\n"
				if err != nil || string(got) != want {
					t.Errorf("skip log %q (%v), want %q", got, err, want)
				}
			} else if !errors.Is(err, os.ErrNotExist) {
				t.Errorf("skip log written without a recorded skip: %q (%v)", got, err)
			}
		})
	}
}

// Test binaries of several packages append to one log at once: each
// line stays whole.
func TestRecordKeepsLinesWhole(t *testing.T) {
	t.Parallel()
	log := filepath.Join(t.TempDir(), "skipped")
	const n = 50
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if err := record(log, "chromium", "chromium", fmt.Sprintf("TestBrowser%d", i)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	seen := map[string]bool{}
	for _, line := range lines {
		seen[line] = true
	}
	for i := range n {
		want := fmt.Sprintf("chromium\tchromium\tinternal/testdeps.TestBrowser%d", i)
		if !seen[want] {
			t.Errorf("line %q missing from the log:\n%s", want, data)
		}
	}
	if len(lines) != n {
		t.Errorf("%d lines, want %d:\n%s", len(lines), n, data)
	}
}

package einocompact_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// setupRun is what scripts/setup did on a machine of stubs: the commands
// it ran (the stubs' log), its exit error and its output.
type setupRun struct {
	calls          []string
	err            error
	stdout, stderr string
}

// runSetup runs scripts/setup with args on a PATH of stubs alone: one
// executable per name in have (the programs the machine has), id printing
// uid, and go (answering "env CC" with gcc), apt-get and sudo (when in
// have) recording their arguments. env is added to the environment.
func runSetup(t *testing.T, uid string, have []string, env []string, args ...string) setupRun {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skipf("no bash: %v", err)
	}
	bin := t.TempDir()
	calls := filepath.Join(t.TempDir(), "calls")
	stub := func(name, body string) {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	record := `echo "${0##*/} $*" >>"$STUB_CALLS"`
	stub("id", "echo "+uid)
	stub("go", `if [ "$1 $2" = "env CC" ]; then echo gcc; exit 0; fi`+"\n"+record)
	for _, name := range have {
		stub(name, record)
	}
	cmd := exec.Command(bash, append([]string{"scripts/setup"}, args...)...)
	cmd.Env = append([]string{"PATH=" + bin, "STUB_CALLS=" + calls}, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	run := setupRun{err: cmd.Run(), stdout: stdout.String(), stderr: stderr.String()}
	if data, err := os.ReadFile(calls); err == nil {
		run.calls = strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	}
	return run
}

// scripts/setup, which make test runs first, installs the Debian packages
// the tests need when they are missing (one update, one install), as root
// or through sudo, and stops at once, in one line naming them, without
// either; then it downloads the modules.
func TestSetupScript(t *testing.T) {
	t.Parallel()
	const (
		update   = "apt-get update"
		download = "go mod download"
		sudo     = "sudo DEBIAN_FRONTEND=noninteractive "
	)
	tests := []struct {
		name      string
		uid       string
		have, env []string
		wantCalls []string
		wantFail  bool
		wantSaid  []string // in its only line of stderr
	}{
		{name: "everything installed", uid: "1000", have: []string{"chromium", "redis-server", "gcc"},
			wantCalls: []string{download}},
		{name: "root installs what is missing", uid: "0", have: []string{"apt-get", "gcc"},
			wantCalls: []string{update, "apt-get install -y chromium redis-server", download}},
		{name: "root installs the C compiler", uid: "0", have: []string{"apt-get", "chromium", "redis-server"},
			wantCalls: []string{update, "apt-get install -y gcc", download}},
		{name: "sudo installs what is missing", uid: "1000", have: []string{"apt-get", "sudo", "gcc", "chromium"},
			wantCalls: []string{"sudo DEBIAN_FRONTEND=noninteractive apt-get update", sudo + "apt-get install -y redis-server", download}},
		{name: "neither root nor sudo stops", uid: "1000", have: []string{"apt-get", "gcc"},
			wantFail: true, wantSaid: []string{"apt-get install -y chromium redis-server", "as root", "NO_APT=1"}},
		{name: "no apt-get stops", uid: "0", have: []string{"gcc", "redis-server"},
			wantFail: true, wantSaid: []string{"chromium", "no apt-get", "NO_APT=1"}},
		{name: "NO_APT=1 goes on without them", uid: "1000", have: []string{"apt-get", "gcc"}, env: []string{"NO_APT=1"},
			wantCalls: []string{download}, wantSaid: []string{"chromium redis-server", "skipped"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			run := runSetup(t, tt.uid, tt.have, tt.env)
			if (run.err != nil) != tt.wantFail {
				t.Fatalf("exit error %v, want failure %v\nstdout:\n%s\nstderr:\n%s", run.err, tt.wantFail, run.stdout, run.stderr)
			}
			if !slices.Equal(run.calls, tt.wantCalls) {
				t.Errorf("ran %q, want %q", run.calls, tt.wantCalls)
			}
			if tt.wantSaid == nil {
				if run.stderr != "" {
					t.Errorf("stderr %q, want none", run.stderr)
				}
				return
			}
			if strings.Count(run.stderr, "\n") != 1 {
				t.Errorf("stderr is not one line:\n%s", run.stderr)
			}
			for _, want := range tt.wantSaid {
				if !strings.Contains(run.stderr, want) {
					t.Errorf("stderr %q does not say %q", run.stderr, want)
				}
			}
		})
	}
}

// After the tests, scripts/setup --report turns internal/testdeps's skip
// log into one line naming the skipped tests, the programs they lacked and
// the packages to install; it prints nothing when no test was skipped.
func TestSetupReportsSkips(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	skips := [][3]string{
		{"redis-server", "redis-server", "integration/redisstore.TestStoreA"},
		{"chromium", "chromium", "integration/inspect.TestPage/wide"},
		{"redis-server", "redis-server", "integration/fx.TestStoreB"},
	}
	var log strings.Builder
	for _, s := range skips {
		log.WriteString(strings.Join(s[:], "\t") + "\n")
	}
	logged := filepath.Join(dir, "skips")
	if err := os.WriteFile(logged, []byte(log.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}

	run := runSetup(t, "1000", nil, nil, "--report", logged)
	if run.err != nil || run.calls != nil {
		t.Fatalf("report: %v, ran %q\n%s", run.err, run.calls, run.stderr)
	}
	if strings.Count(run.stdout, "\n") != 1 {
		t.Errorf("the report is not one line:\n%s", run.stdout)
	}
	for _, want := range []string{"SKIPPED 3 tests", "redis-server, chromium", "apt-get install -y redis-server chromium",
		skips[0][2], skips[1][2], skips[2][2]} {
		if !strings.Contains(run.stdout, want) {
			t.Errorf("the report %q does not say %q", run.stdout, want)
		}
	}
	for _, quiet := range []string{empty, filepath.Join(dir, "absent")} {
		if run := runSetup(t, "1000", nil, nil, "--report", quiet); run.err != nil || run.stdout+run.stderr != "" {
			t.Errorf("report of %s: %v, said %q", filepath.Base(quiet), run.err, run.stdout+run.stderr)
		}
	}
}

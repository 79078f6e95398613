// Package testdeps gives a test a program of the machine's that a Debian
// package provides (redis-server, chromium). Without the program, the test
// fails under CI=true, where a missing program is a broken set-up (make
// test installs every one), and is skipped elsewhere. go test shows no
// skip of a package that passes, so each skip is also appended to the file
// named by $EINOCOMPACT_SKIPLOG, which make test sets and reports in the
// run's last line (scripts/setup --report).
package testdeps

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// SkipLogEnv names the environment variable holding the file a skip is
// appended to, one line each: program, Debian package and test, separated
// by tabs. Unset, skips are not recorded.
const SkipLogEnv = "EINOCOMPACT_SKIPLOG"

// Program returns the path of the program command for t. When it is not
// on the PATH, t fails if $CI is "true" and is skipped otherwise, naming
// debPackage, the Debian package that installs it.
func Program(t testing.TB, command, debPackage string) string {
	t.Helper()
	return program(t, command, debPackage, exec.LookPath, os.Getenv)
}

// program is Program with the PATH look-up and the environment as
// arguments, so its test can make a program missing and set CI.
func program(t testing.TB, command, debPackage string, lookPath func(string) (string, error), getenv func(string) string) string {
	t.Helper()
	path, err := lookPath(command)
	if err == nil {
		return path
	}
	if getenv("CI") == "true" {
		t.Fatalf("%s is required in CI (make test installs the Debian package %s): %v", command, debPackage, err)
		return ""
	}
	if log := getenv(SkipLogEnv); log != "" {
		if err := record(log, command, debPackage, t.Name()); err != nil {
			t.Errorf("recording the skip in $%s: %v", SkipLogEnv, err)
		}
	}
	t.Skipf("%s is not installed: install the Debian package %s (make test does it when run as root)", command, debPackage)
	return ""
}

// record appends a skip's line to the file log. The test is named with
// its package's directory in the module (go test runs a test binary in
// its package's directory). One write of a short line with O_APPEND keeps
// the lines of test binaries running at once whole.
func record(log, command, debPackage, test string) error {
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, werr := fmt.Fprintf(f, "%s\t%s\t%s.%s\n", command, debPackage, packageDir(), test)
	return errors.Join(werr, f.Close())
}

// packageDir is the working directory relative to the module's root (the
// nearest directory above with a go.mod), or its base name when there is
// none.
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "?"
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rel, err := filepath.Rel(dir, wd)
			if err != nil {
				break
			}
			return filepath.ToSlash(rel)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return filepath.Base(wd)
}

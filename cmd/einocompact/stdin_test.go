package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pipeInputs are the transcripts TestCompactReadsAPipe sends through a pipe:
// each format and shape the command reads, and one larger than a pipe's
// buffer, so the writer blocks until the command reads.
func pipeInputs(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	body, err := os.ReadFile(filepath.Join("testdata", "library.openai.json"))
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		t.Fatal(err)
	}
	array := filepath.Join(dir, "library-messages.openai.json")
	if err := os.WriteFile(array, fields["messages"], 0o644); err != nil {
		t.Fatal(err)
	}
	return map[string]string{
		"eino array":          filepath.Join("testdata", "coding.eino.json"),
		"openai request body": filepath.Join("testdata", "library.openai.json"),
		"openai array":        array,
		"eino, 300 messages":  writeLargeTranscript(t, dir, 300),
	}
}

// feed writes data to a new pipe from its own goroutine and returns the
// read end; wait closes the read end (so a writer the command stopped
// reading from fails rather than blocks) and returns the writer's error.
func feed(t *testing.T, data []byte) (r *os.File, wait func() error) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := w.Write(data)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		done <- err
	}()
	return r, func() error {
		r.Close()
		return <-done
	}
}

// TestCompactReadsAPipe (issue 30 item 17): a transcript read from a pipe,
// as `--in -` (stdin) or as a path naming a pipe (`--in /dev/stdin`), gives
// the command what the same file gives it. Each input is read once: the
// format detection used to read the stream, then the decoding read it again
// and found it empty ("unexpected end of JSON input").
func TestCompactReadsAPipe(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/fd/0"); err != nil {
		t.Skipf("no /dev/fd on this system to name a pipe by path: %v", err)
	}
	for name, file := range pipeInputs(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		// The window is large enough that nothing is compacted, so --out
		// is the transcript as read, written back in its format.
		args := func(in, out string) []string {
			return []string{"compact", "--in", in, "--window", "100000000", "--offline", "--quiet", "--out", out}
		}
		dir := t.TempDir()
		wantOut := filepath.Join(dir, "from-file.json")
		if code, _, stderr := mtRun(t, mtNoEnv, args(file, wantOut)...); code != 0 {
			t.Fatalf("%s from the file: exit %d: %s", name, code, stderr)
		}
		want, err := os.ReadFile(wantOut)
		if err != nil {
			t.Fatal(err)
		}
		for _, via := range []string{"stdin", "a path"} {
			t.Run(name+" via "+via, func(t *testing.T) {
				t.Parallel()
				r, wait := feed(t, data)
				in, stdin := "-", io.Reader(r)
				if via == "a path" {
					// What /dev/stdin is when stdin is a pipe.
					in, stdin = fmt.Sprintf("/dev/fd/%d", r.Fd()), strings.NewReader("")
				}
				out := filepath.Join(t.TempDir(), "from-pipe.json")
				code, stdout, stderr := mtRunStdin(t, stdin, mtNoEnv, args(in, out)...)
				if err := wait(); err != nil {
					t.Errorf("writing the pipe: %v", err)
				}
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				got, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != string(want) {
					t.Errorf("--out from the pipe differs from --out from the file (%d bytes against %d)", len(got), len(want))
				}
				if via == "stdin" && !strings.HasPrefix(stdout, "stdin: ") {
					t.Errorf("stdout does not name stdin as the input:\n%s", stdout)
				}
			})
		}
	}
}

// TestCompactPipeErrors: malformed JSON from stdin is reported at its line
// and column, after the name "stdin".
func TestCompactPipeErrors(t *testing.T) {
	t.Parallel()
	r, wait := feed(t, []byte("[\n  {\"role\": \"user\","))
	code, _, stderr := mtRunStdin(t, r, mtNoEnv, "compact", "--in", "-", "--window", "100")
	if err := wait(); err != nil {
		t.Errorf("writing the pipe: %v", err)
	}
	if want := "stdin:2:18: unexpected end of JSON input"; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q; want exit 1 and %q", code, stderr, want)
	}
}

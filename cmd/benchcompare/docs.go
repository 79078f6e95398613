package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Blocks of docs/benchmarks.md that this command rewrites; everything
// outside them is prose kept as written.
const (
	blockMicro      = "micro"
	blockSimulation = "simulation"
)

func blockBegin(name string) string { return "<!-- benchcompare:" + name + ":begin -->" }
func blockEnd(name string) string   { return "<!-- benchcompare:" + name + ":end -->" }

// replaceBlock swaps the text between the markers of block name in doc for
// body. It fails when the markers are missing, so prose is never lost.
func replaceBlock(doc []byte, name, body string) ([]byte, error) {
	begin, end := []byte(blockBegin(name)), []byte(blockEnd(name))
	i := bytes.Index(doc, begin)
	j := bytes.Index(doc, end)
	if i < 0 || j < i {
		return nil, fmt.Errorf("markers %s ... %s not found", begin, end)
	}
	var out bytes.Buffer
	out.Write(doc[:i+len(begin)])
	out.WriteString("\n")
	out.WriteString(strings.TrimSpace(body))
	out.WriteString("\n")
	out.Write(doc[j:])
	return out.Bytes(), nil
}

// updateDoc rewrites block name of path in place.
func updateDoc(path, name, body string) error {
	doc, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := replaceBlock(doc, name, body)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, out, 0o644)
}

// machine describes where the numbers were taken.
func machine() string {
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	load := "unknown"
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 3 {
			load = strings.Join(f[:3], " ")
		}
	}
	return fmt.Sprintf("%d CPUs (%s), %s, %s/%s, load average %s when written", runtime.NumCPU(), cpu, runtime.Version(), runtime.GOOS, runtime.GOARCH, load)
}

func docPath(dir string) string { return filepath.Join(dir, "benchmarks.md") }

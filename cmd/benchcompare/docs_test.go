package main

import (
	"strings"
	"testing"
)

func TestReplaceBlockKeepsProse(t *testing.T) {
	t.Parallel()
	doc := "intro\n" + blockBegin("x") + "\nold\n" + blockEnd("x") + "\noutro\n"
	out, err := replaceBlock([]byte(doc), "x", "new table\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "intro\n" + blockBegin("x") + "\nnew table\n" + blockEnd("x") + "\noutro\n"
	if string(out) != want {
		t.Errorf("got %q, want %q", out, want)
	}
	if _, err := replaceBlock([]byte("no markers"), "x", "t"); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("missing markers: err = %v", err)
	}
}

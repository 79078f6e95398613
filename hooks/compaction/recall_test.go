package compaction

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRecallToolInfo(t *testing.T) {
	t.Parallel()
	tl, err := NewRecallTool(arcNew(t, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	info, err := tl.Info(context.Background())
	if err != nil || info.Name != "recall" {
		t.Fatalf("Info = %+v, %v", info, err)
	}
	if _, err := NewRecallTool(nil); err == nil {
		t.Fatal("a nil archive was accepted")
	}
	if _, err := NewRecallTool(arcNew(t, t.TempDir()), WithRecallMaxChars(10)); err == nil || !strings.Contains(err.Error(), "10") {
		t.Fatalf("a 10-character page: %v", err)
	}
}

// TestRecallToolReturnsWhatTheAgentSaw: the tool returns the archived
// messages as the transcript renders them (tool output verbatim), scoped to
// the ctx's conversation, filtered by search, paged at the cap.
func TestRecallToolReturnsWhatTheAgentSaw(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := arcNew(t, t.TempDir())
	conv := arcConv(t, "start")
	output := "exit status 2\n  main.go:12: undefined: frobnicate"
	ref := arcPut(t, a, conv, call("c1"), result("c1", output), asst("it failed"))
	tl, err := NewRecallTool(a, WithRecallMaxChars(200))
	if err != nil {
		t.Fatal(err)
	}
	run := func(ctx context.Context, args string) (string, error) { return tl.InvokableRun(ctx, args) }

	out, err := run(WithConversation(ctx, conv), fmt.Sprintf(`{"reference":%q}`, ref))
	if err != nil {
		t.Fatal(err)
	}
	if want := RenderMessage(result("c1", output), RenderOptions{ToolCallIDs: true}); !strings.Contains(out, want) {
		t.Fatalf("recall output lacks the tool result as rendered (%q):\n%s", want, out)
	}

	out, err = run(ctx, fmt.Sprintf(`{"reference":%q,"search":"FROBNICATE"}`, ref))
	if err != nil || !strings.Contains(out, output) || strings.Contains(out, "it failed") {
		t.Fatalf("search: %v\n%s", err, out)
	}

	long := arcPut(t, a, conv, result("c2", strings.Repeat("ä", 450)), result("c3", "tail"))
	var pages []string
	for p := 1; ; p++ {
		out, err := run(ctx, fmt.Sprintf(`{"reference":%q,"page":%d}`, long, p))
		if err != nil {
			t.Fatalf("page %d: %v", p, err)
		}
		pages = append(pages, out)
		if !strings.Contains(out, "[More:") {
			break
		}
	}
	if len(pages) < 3 {
		t.Fatalf("450 code points at 200 a page came in %d pages", len(pages))
	}
	total := 0
	for _, p := range pages {
		_, body, _ := strings.Cut(p, "\n")
		body, _, _ = strings.Cut(body, "\n[More:")
		if utf8.RuneCountInString(body) > 200 {
			t.Fatalf("a page holds %d code points, cap 200", utf8.RuneCountInString(body))
		}
		total += strings.Count(body, "ä")
	}
	if total != 450 || !strings.Contains(pages[len(pages)-1], "tail") {
		t.Fatalf("the pages hold %d of 450 code points", total)
	}
	if _, err := run(ctx, fmt.Sprintf(`{"reference":%q,"page":%d}`, long, len(pages)+1)); err == nil {
		t.Fatal("a page past the end was answered")
	}
}

// TestRecallToolRefuses: each reference the tool must refuse comes back as
// an error wrapping its sentinel, naming what is wrong.
func TestRecallToolRefuses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := arcNew(t, t.TempDir())
	mine, theirs := arcConv(t, "mine"), arcConv(t, "theirs")
	theirRef := arcPut(t, a, theirs, result("c1", "their secret"))
	tl, err := NewRecallTool(a)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, args string
		want       error
	}{
		{"another conversation's reference", fmt.Sprintf(`{"reference":%q}`, theirRef), ErrArchiveScope},
		{"forged reference", fmt.Sprintf(`{"reference":%q}`, theirRef[:len(theirRef)-2]+"00"), ErrArchiveReference},
		{"guessed reference", `{"reference":"arc1-` + mine + `-0000000000000000-000000000000000000000000"}`, ErrArchiveReference},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, err := tl.InvokableRun(WithConversation(ctx, mine), tc.args)
			if !errors.Is(err, tc.want) || strings.Contains(out, "their secret") {
				t.Fatalf("got %q, %v; want %v", out, err, tc.want)
			}
		})
	}
	for _, args := range []string{`not json`, `{}`, `{"reference":"x","page":-1}`} {
		if _, err := tl.InvokableRun(ctx, args); err == nil {
			t.Fatalf("arguments %s were accepted", args)
		}
	}
}

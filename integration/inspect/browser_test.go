package inspect

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/einocompact/einocompact/internal/testdeps"
)

// browser starts one headless Debian chromium for t and its subtests, in
// a fresh profile under t.TempDir(), with everything that would reach the
// network at start-up turned off. Without chromium the test (or benchmark)
// fails when CI=true and is skipped otherwise (internal/testdeps).
func browser(t testing.TB) context.Context {
	t.Helper()
	path := testdeps.Program(t, "chromium", "chromium")
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	ctx, cancel := chromedp.NewContext(alloc)
	// The first action starts the browser; tabs opened later share it.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		cancel()
		cancelAlloc()
		t.Fatalf("starting chromium: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	return ctx
}

// tab is a new tab of the browser whose console errors, uncaught
// exceptions and browser-log errors (CSP violations among them) are
// collected.
type tab struct {
	ctx    context.Context
	mu     sync.Mutex
	errors []string
}

func newTab(t testing.TB, browserCtx context.Context) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browserCtx)
	t.Cleanup(cancel)
	tb := &tab{ctx: ctx}
	err := chromedp.Listen(ctx, func(ev any) {
		var msg string
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				msg = "console." + string(ev.Type)
			}
		case *runtime.EventExceptionThrown:
			msg = "exception: " + ev.ExceptionDetails.Text
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError {
				msg = string(ev.Entry.Source) + ": " + ev.Entry.Text
			}
		}
		if msg != "" {
			tb.mu.Lock()
			tb.errors = append(tb.errors, msg)
			tb.mu.Unlock()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// open navigates to u, waits for the load event and fails t on any console
// error seen by then.
func (tb *tab) open(t testing.TB, u string) {
	t.Helper()
	if err := chromedp.Do(tb.ctx, chromedp.Navigate(u)); err != nil {
		t.Fatalf("navigate %s: %v", u, err)
	}
	// One more round trip: Listen delivers an event before the reply to a
	// command sent after it.
	if _, err := chromedp.Run(tb.ctx, chromedp.Evaluate[string](`document.readyState`)); err != nil {
		t.Fatal(err)
	}
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if len(tb.errors) > 0 {
		t.Errorf("console errors on %s:\n%s", u, strings.Join(tb.errors, "\n"))
	}
}

func eval[T any](t testing.TB, tb *tab, js string) T {
	t.Helper()
	v, err := chromedp.Run(tb.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// serve mounts rec where Register puts it and returns the conversation
// page's URL for id.
func serve(t testing.TB, rec *Recorder, id string) string {
	t.Helper()
	mux := http.NewServeMux()
	rec.Register(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + Path + "conversation?id=" + url.QueryEscape(id)
}

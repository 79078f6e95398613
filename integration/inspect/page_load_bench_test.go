package inspect

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// BenchmarkConversationPageInBrowser loads the served page of a 10,000-message
// conversation (50 compactions of 200 captured messages, 5,000 model calls)
// in headless chromium, one navigation per op from about:blank, in one tab.
// ns/op is the whole navigation as a reader waits for it: the server writing
// the page, the transfer, and the browser's parsing, style and layout up to
// the end of the load event. load-ms/op is the browser's share alone, by its
// Navigation Timing: from the response's first byte to the end of the load
// event. TestConversationPageInBrowser checks what the page shows.
func BenchmarkConversationPageInBrowser(b *testing.B) {
	ctx := browser(b)
	rec := newTestRecorder(b, &Config{CaptureContent: true, MaxContentBytes: 8 << 20})
	messages := recordLarge(b, rec, "large", 50, 200, 100)
	u := serve(b, rec, "large")
	tb := newTab(b, ctx)
	timing := `(() => { const n = performance.getEntriesByType('navigation')[0]; return n.loadEventEnd - n.responseStart })()`
	var loadMS float64
	for b.Loop() {
		b.StopTimer()
		if err := chromedp.Do(tb.ctx, chromedp.Navigate("about:blank")); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := chromedp.Do(tb.ctx, chromedp.Navigate(u)); err != nil {
			b.Fatalf("navigate %s: %v", u, err)
		}
		b.StopTimer()
		ms := eval[float64](b, tb, timing)
		if ms <= 0 {
			b.Fatalf("navigation timing gave %v ms: the load event has not ended", ms)
		}
		loadMS += ms
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(loadMS/float64(b.N), "load-ms/op")
	// The page measured is the whole page, and loaded without an error.
	tb.open(b, u)
	if n := eval[int](b, tb, `document.body.textContent.match(/message \d+ of round \d+/g).length`); n != messages {
		b.Fatalf("the page shows %d replaced messages, want %d", n, messages)
	}
}

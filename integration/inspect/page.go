package inspect

import (
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

//go:embed page.tmpl style.css
var assets embed.FS

var (
	styleSheet = mustRead("style.css")
	// pageCSP allows the page's own stylesheet, by hash, and nothing else:
	// no script, no image, font or frame, no load from anywhere, no form.
	// The page needs no script (rows expand with <details>), so hostile
	// text that slipped past escaping still could not run.
	pageCSP = "default-src 'none'; style-src '" + styleHash() + "'; img-src 'none'; script-src 'none'; base-uri 'none'; form-action 'none'"
	// handlerCSP adds what only a header can say: no framing.
	handlerCSP = pageCSP + "; frame-ancestors 'none'"
	pages      = template.Must(template.New("page").Funcs(template.FuncMap{
		"vis":      visible,
		"utc":      func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") },
		"dur":      duration,
		"inc":      func(i int) int { return i + 1 },
		"plus":     func(d, v float64) float64 { return v + d },
		"minus":    func(d, v float64) float64 { return v - d },
		"shape":    shape,
		"anchorOf": anchor,
	}).ParseFS(assets, "page.tmpl"))
)

func mustRead(name string) string {
	b, err := assets.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func styleHash() string {
	sum := sha256.Sum256([]byte(styleSheet))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// kinds in the order the legend lists them.
var kinds = []string{KindSynchronous, KindPrepared, KindDeferred, KindFallback, KindFailed, KindUnprofitable, KindDeclined, KindBackedOff, KindHeld}

// head is what the template's head needs.
type head struct {
	Title   string
	CSS     template.CSS
	CSPMeta string
}

func newHead(title string) head {
	return head{Title: title, CSS: template.CSS(styleSheet), CSPMeta: pageCSP}
}

type indexPage struct {
	head
	Cfg           Config
	Conversations []summary
}

type conversationPage struct {
	head
	Offline bool
	S       snapshot
	Chart   chart
	Kinds   []string
	Rows    []row
}

// row is one compaction's row; newest last, like the chart.
type row struct{ R *record }

// Tiers lists the tiers of a compaction's rounds, each once, in order,
// then the fallback's stages when it ran; "deep" leads a deep compaction's.
func (p conversationPage) Tiers(r *record) string {
	var ts []string
	if r.Deep && len(r.Rounds) > 0 {
		ts = append(ts, "deep")
	}
	for _, rd := range r.Rounds {
		if rd.Tier != "" && !slices.Contains(ts, rd.Tier) {
			ts = append(ts, rd.Tier)
		}
	}
	if r.Fallback != "" {
		ts = append(ts, "fallback: "+p.FallbackStages(r))
	}
	if len(ts) == 0 {
		return "–"
	}
	return strings.Join(ts, ", ")
}

// FallbackStages names the fallback's stages in the order they ran, ""
// when none ran.
func (conversationPage) FallbackStages(r *record) string {
	return strings.ReplaceAll(r.Fallback, "+", " then ")
}

// Invalidated is the cached prefix an applied compaction invalidated, in
// tokens, or "–" when nothing was applied.
func (conversationPage) Invalidated(r *record) string {
	if !r.Applied {
		return "–"
	}
	return strconv.Itoa(r.InvalidatedTokens)
}

// Summarizer is a compaction's summarizer time and tokens, with the prompt
// tokens the provider read from its cache when it reported any; "" without
// rounds.
func (conversationPage) Summarizer(r *record) string {
	if len(r.Rounds) == 0 {
		return ""
	}
	var lat time.Duration
	in, cached, out, usage := 0, 0, 0, false
	for _, rd := range r.Rounds {
		lat += rd.Latency
		if rd.HasUsage {
			usage = true
			in += rd.PromptTokens
			out += rd.CompletionTokens
		}
		cached += rd.CachedTokens
	}
	if !usage {
		return duration(lat)
	}
	if cached > 0 {
		return fmt.Sprintf("%s, %d in (%d cached) / %d out", duration(lat), in, cached, out)
	}
	return fmt.Sprintf("%s, %d in / %d out", duration(lat), in, out)
}

// Identifiers is "kept / appended / dropped" over a compaction's rounds.
func (conversationPage) Identifiers(r *record) string {
	if len(r.Rounds) == 0 {
		return "–"
	}
	var s [3]int
	for _, rd := range r.Rounds {
		s[0] += rd.Identifiers.Survived
		s[1] += rd.Identifiers.Appended
		s[2] += rd.Identifiers.Dropped
	}
	return fmt.Sprintf("%d / %d / %d", s[0], s[1], s[2])
}

func newConversationPage(s snapshot, offline bool) conversationPage {
	p := conversationPage{head: newHead("Compaction of " + s.ID), Offline: offline, S: s, Chart: newChart(s), Kinds: kinds}
	for _, r := range s.Compactions {
		p.Rows = append(p.Rows, row{R: r})
	}
	return p
}

// duration is d for people: microseconds to minutes, three digits.
func duration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0"
	case d < time.Millisecond:
		return fmt.Sprintf("%d µs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond))
	case d < time.Minute:
		return fmt.Sprintf("%.2f s", d.Seconds())
	}
	return d.Round(time.Second).String()
}

// bidiControls are the code points that reorder text (embeddings,
// overrides, isolates and marks). The page shows them as visible
// placeholders: hidden, they can make a text read differently from what it
// is, and isolation alone keeps them from spilling over, not from
// disguising the text they sit in.
var bidiControls = strings.NewReplacer(
	"\u202a", "⟨LRE⟩", "\u202b", "⟨RLE⟩", "\u202c", "⟨PDF⟩", "\u202d", "⟨LRO⟩", "\u202e", "⟨RLO⟩",
	"\u2066", "⟨LRI⟩", "\u2067", "⟨RLI⟩", "\u2068", "⟨FSI⟩", "\u2069", "⟨PDI⟩",
	"\u200e", "⟨LRM⟩", "\u200f", "⟨RLM⟩", "\u061c", "⟨ALM⟩",
)

// visible is s with its bidi controls shown as placeholders; the template
// escapes the result like any text.
func visible(s string) string { return bidiControls.Replace(s) }

// WriteHTML writes conversation id's page as one self-contained HTML file
// (its stylesheet inline, its Content-Security-Policy in a meta element):
// what the handler serves, without the link back to the index. It fails
// when the recorder keeps no conversation id.
func (r *Recorder) WriteHTML(w io.Writer, id string) error {
	s, ok := r.snapshot(id)
	if !ok {
		return fmt.Errorf("inspect: WriteHTML: no conversation %q is kept (kept: %d)", id, len(r.Conversations()))
	}
	return pages.ExecuteTemplate(w, "conversation", newConversationPage(s, true))
}

// Package inspect shows what compaction did to each conversation: a
// Recorder keeps, in bounded memory, the size of recent model calls and the
// report of every compaction, and its http.Handler renders them as HTML, the
// way net/http/pprof serves /debug/pprof.
//
//	rec, err := inspect.NewRecorder(nil)            // sizes and reports, no conversation text
//	hook, err := compaction.NewCompactionHook(ctx, cfg)
//	w, err := rec.Wrap(hook)                        // records every model call
//	reg.Register(hooks.BeforeLLM, w)
//	rec.Register(mux)                               // serves /debug/compaction/
//
// Wrap records every model call the hook sees, with its thresholds for the
// chart. A Recorder is also a compaction.Observer, for code that can only
// hand the hook an observer: it then sees the triggered calls only.
//
// Conversation text is kept only with Config.CaptureContent, redacted like
// the library's logs (URL credentials and words that look like API keys
// masked). The pages show it: mount the handler on a private listener, never
// a public one. See docs/inspect.md.
//
// The pages are server-rendered html/template with inline SVG and CSS, no
// script and no outside resources, served with a Content-Security-Policy that
// forbids both; WriteHTML writes the same page as a self-contained file.
package inspect

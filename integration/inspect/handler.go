package inspect

import (
	"bytes"
	"net/http"
)

// Path is where Register mounts the handler, as net/http/pprof uses
// /debug/pprof/.
const Path = "/debug/compaction/"

// Handler serves the recorder's pages: "/" lists the conversations kept,
// "/conversation?id=ID" shows one. Links are relative, so it works under
// any prefix with http.StripPrefix. The pages show conversation text when
// content capture is on: serve them on a private listener only.
func (r *Recorder) Handler() http.Handler { return http.HandlerFunc(r.serve) }

// Register mounts Handler on mux at Path ("/debug/compaction/", and the
// path without its slash redirects there).
func (r *Recorder) Register(mux *http.ServeMux) {
	mux.Handle(Path, http.StripPrefix(Path[:len(Path)-1], r.Handler()))
}

func (r *Recorder) serve(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	var (
		buf bytes.Buffer
		err error
	)
	switch req.URL.Path {
	case "/", "":
		err = pages.ExecuteTemplate(&buf, "index", indexPage{head: newHead("Compaction"), Cfg: r.cfg, Conversations: r.summaries()})
	case "/conversation":
		s, ok := r.snapshot(req.URL.Query().Get("id"))
		if !ok {
			http.Error(w, "no such conversation is kept (it may have been evicted)", http.StatusNotFound)
			return
		}
		err = pages.ExecuteTemplate(&buf, "conversation", newConversationPage(s, false))
	default:
		http.NotFound(w, req)
		return
	}
	if err != nil {
		r.cfg.Logger.Error("inspect: rendering a page", "path", req.URL.Path, "error", err)
		http.Error(w, "rendering failed", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", handlerCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	_, _ = w.Write(buf.Bytes())
}

package main

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/einocompact/einocompact/integration/inspect"
)

// inspectConversation names the demo's one run in the inspector.
const inspectConversation = "fx-app"

// writeInspectorPage writes the run's inspector page to path.
func writeInspectorPage(rec *inspect.Recorder, path string) error {
	if rec == nil {
		return fmt.Errorf("no recorder: inspect.enabled is off")
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := rec.WriteHTML(f, inspectConversation); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// fileURL is the file: URL of path, for a browser's address bar.
func fileURL(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}

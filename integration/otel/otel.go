// Package otel is the old path of package compactotel
// (github.com/einocompact/einocompact/integration/compactotel), kept for one
// release so that code written against it still compiles. Its name clashed
// with OpenTelemetry's own package, which every user of it also imports.
//
// Deprecated: import github.com/einocompact/einocompact/integration/compactotel.
package otel

import "github.com/einocompact/einocompact/integration/compactotel"

// Observer records compaction reports as OpenTelemetry metrics.
//
// Deprecated: use compactotel.Observer.
type Observer = compactotel.Observer

// NewObserver returns an Observer on the meter provider.
//
// Deprecated: use compactotel.NewObserver.
var NewObserver = compactotel.NewObserver

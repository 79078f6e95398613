package bench

import (
	"io"
	"log/slog"
)

// discardLogger silences the libraries under measurement: logging is not
// what is being compared, and Eino's middleware does not log.
var discardLogger = slog.New(slog.NewTextHandler(io.Discard, nil))

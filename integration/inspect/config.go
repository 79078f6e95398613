package inspect

import (
	"fmt"
	"log/slog"
)

// Defaults of Config.
const (
	DefaultMaxConversations = 64
	DefaultMaxCalls         = 20000
	DefaultMaxCompactions   = 200
	DefaultMaxContentBytes  = 1 << 20
)

// Config bounds what a Recorder keeps. Zero values take the defaults; the
// oldest entry goes first when a bound is reached.
type Config struct {
	// MaxConversations is how many conversations are kept; the one updated
	// least recently is evicted first. Default 64 (DefaultMaxConversations).
	MaxConversations int
	// MaxCalls is how many model calls' sizes are kept per conversation,
	// oldest dropped first. Default 20000 (DefaultMaxCalls).
	MaxCalls int
	// MaxCompactions is how many compaction reports are kept per
	// conversation, oldest dropped first. Default 200
	// (DefaultMaxCompactions).
	MaxCompactions int
	// MaxContentBytes bounds the captured text kept per conversation
	// (CaptureContent): past it, the text of the oldest compactions is
	// dropped first, their reports stay. Default 1 MiB
	// (DefaultMaxContentBytes): with the default MaxConversations, at most
	// 64 MiB of text in all.
	MaxContentBytes int
	// CaptureContent keeps, for every compaction, the messages each round
	// replaced and the summary that replaced them, redacted. Default false:
	// no conversation text is kept at all.
	CaptureContent bool
	// Logger receives a Debug record when a conversation is evicted.
	// Default slog.Default().
	Logger *slog.Logger
}

// withDefaults validates c and fills its zero values.
func (c Config) withDefaults() (Config, error) {
	for _, f := range []struct {
		name string
		v    *int
		def  int
	}{
		{"MaxConversations", &c.MaxConversations, DefaultMaxConversations},
		{"MaxCalls", &c.MaxCalls, DefaultMaxCalls},
		{"MaxCompactions", &c.MaxCompactions, DefaultMaxCompactions},
		{"MaxContentBytes", &c.MaxContentBytes, DefaultMaxContentBytes},
	} {
		if *f.v < 0 {
			return c, fmt.Errorf("inspect: Config.%s must be >= 0 (0: default %d), got %d", f.name, f.def, *f.v)
		}
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c, nil
}

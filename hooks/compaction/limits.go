package compaction

// Limits are a CompactionHook's thresholds after defaults, for tools that
// draw or explain its decisions (an inspector's chart, a CLI's summary).
type Limits struct {
	ContextWindow int     // tokens
	CompactAt     float64 // fraction of ContextWindow at which compaction triggers
	CompactTo     float64 // fraction of ContextWindow compaction aims for
	PrepareAt     float64 // fraction at which a compaction is prepared in the background; 0: off
	// Ceiling is the size in tokens at or above which a triggered call waits
	// for the compaction still being prepared instead of going out
	// uncompacted (see HookConfig.PrepareAt); 0 when PrepareAt is off.
	Ceiling float64
}

// Limits returns the hook's thresholds after defaults.
func (h *CompactionHook) Limits() Limits {
	l := Limits{ContextWindow: h.window, CompactAt: h.at, CompactTo: h.to, PrepareAt: h.prepareAt}
	if h.prepareAt > 0 {
		l.Ceiling = h.ceiling()
	}
	return l
}

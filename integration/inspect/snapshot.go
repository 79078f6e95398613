package inspect

import (
	"maps"
	"time"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// snapshot is a copy of one conversation, taken under the lock and
// rendered without it.
type snapshot struct {
	ID                 string
	First, Last        time.Time
	Limits             compaction.Limits
	Calls              []call
	DroppedCalls       int // recorded calls no longer kept
	Compactions        []*record
	DroppedCompactions int
	Applied            int            // compactions ever applied
	Uncompacted        map[string]int // triggered calls ever recorded and not compacted, by kind
	Saved              int
	Capture            bool
}

// summary is one line of the index.
type summary struct {
	ID          string
	First, Last time.Time
	Calls       int
	// Compactions are the ones applied; Uncompacted the other triggered
	// calls.
	Compactions, Uncompacted int
	Saved                    int
	LastSize, LastLimit      int
}

// snapshot copies conversation id; ok is false when it is not kept.
func (r *Recorder) snapshot(id string) (snapshot, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.convs[id]
	if !ok {
		return snapshot{}, false
	}
	c := e.Value.(*conversation)
	return snapshot{ID: c.id, First: c.first, Last: c.last, Limits: c.limits, Calls: c.calls.slice(),
		DroppedCalls: c.nCalls - c.calls.len(), Compactions: c.comps.slice(), DroppedCompactions: c.nComps - c.comps.len(),
		Applied: c.applied, Uncompacted: maps.Clone(c.uncompacted), Saved: c.saved, Capture: r.cfg.CaptureContent}, true
}

// summaries lists the conversations kept, most recently updated first.
func (r *Recorder) summaries() []summary {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]summary, 0, r.order.Len())
	for e := r.order.Front(); e != nil; e = e.Next() {
		c := e.Value.(*conversation)
		s := summary{ID: c.id, First: c.first, Last: c.last, Calls: c.nCalls, Compactions: c.applied,
			Uncompacted: c.nComps - c.applied, Saved: c.saved,
			LastLimit: c.limits.ContextWindow}
		if n := c.calls.len(); n > 0 {
			s.LastSize = c.calls.at(n - 1).Sent
		}
		out = append(out, s)
	}
	return out
}

// Conversations returns the ids of the conversations kept, most recently
// updated first.
func (r *Recorder) Conversations() []string {
	var ids []string
	for _, s := range r.summaries() {
		ids = append(ids, s.ID)
	}
	return ids
}

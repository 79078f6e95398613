package inspect

import (
	"container/list"
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/internal/redact"
)

// Recorder keeps, per conversation and within Config's bounds, the size of
// recent model calls and the report of every compaction. It is a
// compaction.Observer; Wrap gives it every model call of a hook. It is safe
// for concurrent use.
type Recorder struct {
	cfg  Config
	runs atomic.Uint64 // ids of conversations named by no context

	mu    sync.Mutex
	convs map[string]*list.Element // of *conversation
	order *list.List               // most recently updated first
}

var _ compaction.Observer = (*Recorder)(nil)

// NewRecorder validates cfg and applies its defaults; nil means all
// defaults (content capture off).
func NewRecorder(cfg *Config) (*Recorder, error) {
	var c Config
	if cfg != nil {
		c = *cfg
	}
	c, err := c.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Recorder{cfg: c, convs: map[string]*list.Element{}, order: list.New()}, nil
}

// CaptureContent reports whether the recorder keeps conversation text.
func (r *Recorder) CaptureContent() bool { return r.cfg.CaptureContent }

// conversation is what the recorder keeps of one conversation.
type conversation struct {
	id          string
	first, last time.Time
	limits      compaction.Limits // zero until a wrapped hook reports them
	calls       ring[call]
	comps       ring[*record]
	nCalls      int // calls ever recorded, dropped ones included
	nComps      int // triggered calls ever recorded: compactions and the rest
	applied     int // compactions ever applied, by the compactor or the fallback
	// uncompacted counts, by kind, the triggered calls ever recorded that
	// were not compacted (held, failed, ...): the page counts them apart
	// from the compactions.
	uncompacted map[string]int
	saved       int // tokens removed by the compactions ever recorded
	content     int // bytes of captured text held by comps
}

// call is one model call as the chart draws it.
type call struct {
	N         int // 1-based among the conversation's recorded calls
	Step      int // the step of the call (Report.BeforeStep)
	Estimated int // estimated size before compaction
	Sent      int // estimated size that went out: after compaction when it compacted
}

// recordedKey marks the context of a wrapped hook's Decide, so that the
// same recorder, also installed as the hook's Observer, does not record a
// compaction twice.
type recordedKey struct{}

// ObserveCompaction implements compaction.Observer: it records r under the
// context's conversation (WithConversation, else DefaultConversation).
// Reports of a hook wrapped by this recorder are recorded by the wrapper.
func (r *Recorder) ObserveCompaction(ctx context.Context, rep compaction.Report) {
	if ctx.Value(recordedKey{}) == r {
		return
	}
	r.record(r.conversationID(ctx, nil), nil, rep, nil, nil, nil)
}

// record files one model call and, when it triggered, its compaction.
// limits is nil when unknown; before and after are the conversation around
// the hook, nil when unknown.
func (r *Recorder) record(id string, limits *compaction.Limits, rep compaction.Report, err error, before, after []*schema.Message) {
	if rep.Estimated <= 0 && !rep.Triggered {
		return
	}
	var rec *record
	if rep.Triggered {
		rec = newRecord(rep, err)
		if r.cfg.CaptureContent && rep.Compacted && before != nil && after != nil {
			rec.captureContent(before, after, rep.Rounds, r.cfg.MaxContentBytes)
		}
	}
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.conversationLocked(id, now)
	if limits != nil {
		c.limits = *limits
	}
	c.nCalls++
	cl := call{N: c.nCalls, Step: rep.BeforeStep(), Estimated: rep.Estimated, Sent: rep.Estimated}
	if rep.Compacted {
		cl.Sent = rep.TokensAfter + rep.Overhead
	}
	c.calls.push(cl)
	if rec == nil {
		return
	}
	c.nComps++
	rec.Call, rec.Time = c.nCalls, now
	if rec.Applied {
		c.applied++
		rec.N = c.applied
	} else {
		c.uncompacted[rec.Kind]++
	}
	c.saved += rep.Saved()
	if old, full := c.comps.push(rec); full {
		c.content -= old.contentBytes
	}
	c.content += rec.contentBytes
	r.trimContentLocked(c)
}

// conversationLocked returns id's conversation, created when new, marked
// as the most recently updated; it evicts the least recently updated ones
// past MaxConversations.
func (r *Recorder) conversationLocked(id string, now time.Time) *conversation {
	if e, ok := r.convs[id]; ok {
		r.order.MoveToFront(e)
		c := e.Value.(*conversation)
		c.last = now
		return c
	}
	c := &conversation{id: id, first: now, last: now,
		calls: newRing[call](r.cfg.MaxCalls), comps: newRing[*record](r.cfg.MaxCompactions), uncompacted: map[string]int{}}
	r.convs[id] = r.order.PushFront(c)
	for r.order.Len() > r.cfg.MaxConversations {
		old := r.order.Remove(r.order.Back()).(*conversation)
		delete(r.convs, old.id)
		r.cfg.Logger.Debug("inspect: conversation evicted", "conversation", old.id, "max_conversations", r.cfg.MaxConversations)
	}
	return c
}

// trimContentLocked drops the captured text of the oldest compactions
// until the conversation's text fits MaxContentBytes. Records are never
// changed once filed (pages read them without the lock): a trimmed one is
// replaced by a copy without text.
func (r *Recorder) trimContentLocked(c *conversation) {
	for i := 0; c.content > r.cfg.MaxContentBytes && i < c.comps.len(); i++ {
		p := c.comps.at(i)
		if (*p).contentBytes == 0 {
			continue
		}
		c.content -= (*p).contentBytes
		*p = (*p).withoutContent()
	}
}

// errText is an error's message fit to keep and show: credentials masked,
// length bounded.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return clip(redact.Text(err.Error()), maxErrBytes)
}

// maxErrBytes bounds an error message kept.
const maxErrBytes = 2048

// clip cuts s to at most n bytes, at a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// errorOf is the report's error, else the hook's.
func errorOf(rep compaction.Report, err error) error {
	if rep.Err != nil {
		return rep.Err
	}
	return err
}

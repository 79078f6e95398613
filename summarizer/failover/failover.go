// Package failover makes a summarizer that does not give up: a
// model.BaseChatModel that retries each of an ordered list of chat models with
// exponential backoff and jitter, then falls over to the next.
//
// A typical chain is the production summarizer, then a cheaper model, then the
// offline extractive summarizer (package summarizer/extractive), which cannot
// fail, so compaction always has a summary to apply. Every attempt is recorded
// on the reply (see Attempts) and reported through Config.OnAttempt. A fault
// only the caller can fix, a reasoning model's refusal of max_tokens or its
// reply cut by hidden reasoning, is handed back rather than fallen over from
// (see Model.Generate).
//
// A candidate that fails every try of a call is skipped for Config.CoolDown
// (a circuit breaker), so a dead endpoint costs one call's retries, not every
// call's. The log says so once, at Warn, naming the candidate that writes the
// replies meanwhile, and once, at Info, when the candidate answers again;
// single failed tries are logged at Debug. Model.Stats says which candidate
// wrote how many replies.
package failover

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/internal/redact"
	"github.com/einocompact/einocompact/internal/replytext"
)

// Candidate is one model of the chain.
type Candidate struct {
	// Name identifies the model in attempts and logs. Default: the model's
	// Eino component type, else its Go type.
	Name string
	// Model answers the summarization prompt. Required.
	Model model.BaseChatModel
}

// Config configures a Model.
type Config struct {
	// Candidates are tried in order. At least one is required.
	Candidates []Candidate
	// Retries is how many times a failing candidate is retried before the
	// next one is tried. Default 0 (one attempt each); must be >= 0.
	Retries int
	// BaseDelay is the wait before the first retry; it doubles with every
	// retry of the same candidate. Default 200ms.
	BaseDelay time.Duration
	// MaxDelay caps the wait between retries. Default 5s.
	MaxDelay time.Duration
	// Jitter spreads each wait uniformly by ± this fraction so that many
	// agents retrying at once do not hit a provider together. 0 means the
	// default 0.2; a negative value turns jitter off; must be <= 1.
	Jitter float64
	// AttemptTimeout bounds each attempt; 0 means only ctx bounds it. An
	// attempt ends on time even if the model's client ignores ctx: the chain
	// stops waiting and moves on, and the abandoned call finishes in the
	// background, its reply discarded (see Model.Close).
	AttemptTimeout time.Duration
	// CoolDown is how long a candidate whose every try of a call failed is
	// skipped: later calls go straight to the next candidate (or, for the
	// last one, fail at once). After it, one call tries the candidate once,
	// without retries; a success brings it back, a failure skips it for
	// another CoolDown. Default DefaultCoolDown (1m); negative: never skip.
	CoolDown time.Duration
	// OnAttempt, when set, is called synchronously after every attempt.
	OnAttempt func(ctx context.Context, a Attempt)
	// Logger receives a warning when a candidate starts being skipped, a
	// note when it answers again, and each failed try at Debug. Default
	// slog.Default().
	Logger *slog.Logger
}

// Attempt is the record of one call to one candidate.
type Attempt struct {
	Model   string        // the candidate's Name
	Try     int           // 1 for the first call to this candidate
	Latency time.Duration // how long the call took
	Err     string        // "" on success
}

// AttemptsKey is the schema.Message.Extra key under which the reply records
// its attempts, as a []Attempt.
const AttemptsKey = "summarizer_attempts"

// Model is a model.BaseChatModel over a failover chain. It is safe for
// concurrent use when its candidates are.
type Model struct {
	cfg Config
	log *slog.Logger
	// breakers holds each candidate's circuit breaker, by index.
	breakers []breaker
	// now is the clock the breakers read; tests replace it.
	now func() time.Time
	// calls tracks the candidate calls still running, abandoned ones
	// included, so Close can wait for them.
	calls callTracker
}

var _ model.BaseChatModel = (*Model)(nil)

// ErrAllFailed is wrapped by the error returned when every attempt failed.
var ErrAllFailed = errors.New("failover: every summarizer attempt failed")

// New validates cfg and returns the chain.
func New(cfg *Config) (*Model, error) {
	if cfg == nil {
		return nil, errors.New("failover: nil Config")
	}
	c := *cfg
	if len(c.Candidates) == 0 {
		return nil, errors.New("failover: Config.Candidates needs at least one model")
	}
	c.Candidates = append([]Candidate(nil), c.Candidates...)
	for i, cand := range c.Candidates {
		if cand.Model == nil {
			return nil, fmt.Errorf("failover: Config.Candidates[%d].Model is nil", i)
		}
		if cand.Name == "" {
			c.Candidates[i].Name = nameOf(cand.Model)
		}
	}
	switch {
	case c.Retries < 0:
		return nil, fmt.Errorf("failover: Config.Retries must be >= 0, got %d", c.Retries)
	case c.BaseDelay < 0:
		return nil, fmt.Errorf("failover: Config.BaseDelay must be >= 0, got %v", c.BaseDelay)
	case c.MaxDelay < 0:
		return nil, fmt.Errorf("failover: Config.MaxDelay must be >= 0, got %v", c.MaxDelay)
	case c.Jitter > 1 || c.Jitter != c.Jitter:
		return nil, fmt.Errorf("failover: Config.Jitter must be at most 1, got %v", c.Jitter)
	case c.AttemptTimeout < 0:
		return nil, fmt.Errorf("failover: Config.AttemptTimeout must be >= 0, got %v", c.AttemptTimeout)
	}
	if c.BaseDelay == 0 {
		c.BaseDelay = 200 * time.Millisecond
	}
	if c.MaxDelay == 0 {
		c.MaxDelay = 5 * time.Second
	}
	switch {
	case c.Jitter == 0:
		c.Jitter = 0.2
	case c.Jitter < 0:
		c.Jitter = 0
	}
	if c.CoolDown == 0 {
		c.CoolDown = DefaultCoolDown
	}
	log := c.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Model{cfg: c, log: log, breakers: make([]breaker, len(c.Candidates)), now: time.Now}, nil
}

func nameOf(m model.BaseChatModel) string {
	if t, ok := components.GetType(m); ok && t != "" {
		return t
	}
	return fmt.Sprintf("%T", m)
}

// Generate tries the candidates in order, each up to 1+Retries times, and
// returns the first reply with usable text. A reply with no text counts as a
// failure, so an empty answer falls over too. A candidate cooling down after
// a failed call is skipped (see Config.CoolDown). The reply is a copy with
// the attempts recorded under Extra[AttemptsKey]. A cancelled ctx stops the
// chain at once with an error wrapping ctx.Err().
//
// Two faults are the caller's to fix and stop the chain instead: a
// candidate's refusal of max_tokens (a reasoning model's HTTP 400
// unsupported_parameter) is returned as the error, and a reply cut at the
// output cap before any text (finish reason "length", the hidden reasoning
// used the cap up) is returned as the reply. Retrying or falling over would
// hide them: every call with the same options fails the same way, and a
// fallback that ignores the options (the extractive summarizer) would write
// every summary from then on. A SummarizationCompactor learns from either
// and calls again with the cap sent another way, or with room for reasoning.
func (m *Model) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	var attempts []Attempt
	var errs []error
	for i, cand := range m.cfg.Candidates {
		b := &m.breakers[i]
		tries := m.cfg.Retries + 1
		switch b.admit(m.now()) {
		case skip:
			m.log.DebugContext(ctx, "summarizer skipped while it cools down", "model", cand.Name)
			errs = append(errs, fmt.Errorf("%s skipped: it failed every try of an earlier call and cools down", cand.Name))
			continue
		case tryOnce:
			tries = 1
		}
		var last error
		for try := 1; try <= tries; try++ {
			if try > 1 {
				if err := sleep(ctx, m.backoff(try-1)); err != nil {
					b.abandoned()
					return nil, fmt.Errorf("failover: waiting to retry %s: %w", cand.Name, err)
				}
			}
			if err := ctx.Err(); err != nil {
				b.abandoned()
				return nil, fmt.Errorf("failover: %w", err)
			}
			reply, a, err := m.attempt(ctx, cand, try, input, opts)
			attempts = append(attempts, a)
			if m.cfg.OnAttempt != nil {
				m.cfg.OnAttempt(ctx, a)
			}
			if replytext.RefusesMaxTokens(err) {
				return nil, fmt.Errorf("failover: %s refused max_tokens; the caller must send its cap another way: %w", cand.Name, err)
			}
			if err == nil {
				if b.succeeded() {
					m.log.InfoContext(ctx, fmt.Sprintf("summarizer %q answers again and writes the summaries", cand.Name), "model", cand.Name)
				}
				out := *reply
				out.Extra = make(map[string]any, len(reply.Extra)+1)
				for k, v := range reply.Extra {
					out.Extra[k] = v
				}
				out.Extra[AttemptsKey] = attempts
				return &out, nil
			}
			if ctxErr := ctx.Err(); ctxErr != nil {
				b.abandoned()
				return nil, fmt.Errorf("failover: %s: %w", cand.Name, errors.Join(ctxErr, err))
			}
			b.attemptFailed()
			errs = append(errs, fmt.Errorf("%s try %d: %w", cand.Name, try, err))
			m.log.DebugContext(ctx, "summarizer attempt failed", "model", cand.Name, "try", try, "error", err.Error())
			last = err
		}
		if b.failed(m.now(), m.cfg.CoolDown) {
			m.log.WarnContext(ctx, m.outage(i, tries), "model", cand.Name, "tries", tries, "error", last.Error())
		}
	}
	return nil, fmt.Errorf("%w (%d attempts): %w", ErrAllFailed, len(attempts), errors.Join(errs...))
}

// outage says, in one sentence, that candidate i failed every one of its
// tries and who writes the replies instead, for how long.
func (m *Model) outage(i, tries int) string {
	name := m.cfg.Candidates[i].Name
	instead := "no summarizer is left to write the summaries"
	if i+1 < len(m.cfg.Candidates) {
		instead = fmt.Sprintf("%q writes the summaries", m.cfg.Candidates[i+1].Name)
	}
	failed := "its one try"
	if tries > 1 {
		failed = fmt.Sprintf("%d tries in a row", tries)
	}
	if m.cfg.CoolDown < 0 {
		return fmt.Sprintf("summarizer %q failed %s; %s", name, failed, instead)
	}
	return fmt.Sprintf("summarizer %q failed %s; %s until it is tried again in %v", name, failed, instead, m.cfg.CoolDown)
}

// attempt makes one call, turning panics and empty replies into errors. The
// call runs in a goroutine of its own so that the attempt ends when its ctx
// does, also when the model ignores ctx: the call is then abandoned, left to
// finish in the background (tracked for Close), and its reply discarded.
func (m *Model) attempt(ctx context.Context, cand Candidate, try int, input []*schema.Message, opts []model.Option) (reply *schema.Message, a Attempt, err error) {
	a = Attempt{Model: cand.Name, Try: try}
	callCtx, cancel := ctx, context.CancelFunc(func() {})
	if m.cfg.AttemptTimeout > 0 {
		callCtx, cancel = context.WithTimeout(ctx, m.cfg.AttemptTimeout)
	}
	defer cancel()
	start := time.Now()
	defer func() {
		a.Latency = time.Since(start)
		if err != nil {
			a.Err = err.Error()
		}
	}()
	if callCtx.Done() == nil {
		// Nothing can end the attempt early: no need for a goroutine.
		reply, err = generate(callCtx, cand.Model, input, opts)
	} else {
		type result struct {
			reply *schema.Message
			err   error
		}
		done := make(chan result, 1)
		m.calls.add()
		go func() {
			defer m.calls.done()
			r, err := generate(callCtx, cand.Model, input, opts)
			done <- result{r, err}
		}()
		select {
		case r := <-done:
			reply, err = r.reply, r.err
		case <-callCtx.Done():
			select {
			case r := <-done: // it returned just in time
				reply, err = r.reply, r.err
			default:
				return nil, a, fmt.Errorf("abandoned after %v, the call did not return when its context ended: %w",
					time.Since(start).Round(time.Millisecond), callCtx.Err())
			}
		}
	}
	if err == nil && !hasText(reply) && !replytext.CutBeforeText(reply) {
		err = errors.New("reply has no text")
	}
	// Clients quote the URL they failed on; a key may ride in it, and this
	// error reaches the warning log and the chain's error.
	return reply, a, redact.Error(err, redact.URLs)
}

// generate calls cm, turning a panic into an error.
func generate(ctx context.Context, cm model.BaseChatModel, input []*schema.Message, opts []model.Option) (reply *schema.Message, err error) {
	defer func() {
		if p := recover(); p != nil {
			reply, err = nil, fmt.Errorf("panic: %v", p)
		}
	}()
	return cm.Generate(ctx, input, opts...)
}

// callTracker counts running calls and lets Close wait until none is left.
type callTracker struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed when n drops to 0; nil while n is 0
}

func (t *callTracker) add() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.n == 0 {
		t.idle = make(chan struct{})
	}
	t.n++
}

func (t *callTracker) done() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.n--
	if t.n == 0 {
		close(t.idle)
		t.idle = nil
	}
}

// wait returns when no call is running, or an error counting those still
// running when ctx ends first.
func (t *callTracker) wait(ctx context.Context) error {
	t.mu.Lock()
	idle := t.idle
	t.mu.Unlock()
	if idle == nil {
		return nil
	}
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		t.mu.Lock()
		n := t.n
		t.mu.Unlock()
		return fmt.Errorf("failover: %d summarizer call(s) still running: %w", n, ctx.Err())
	}
}

// hasText applies the compactor's own rule for a usable summary
// (replytext.Usable), so that whatever this chain accepts the compactor can
// use, and whatever the compactor would refuse falls over here.
func hasText(m *schema.Message) bool { return replytext.Usable(m) != "" }

// backoff is BaseDelay·2^(retry-1), capped at MaxDelay, spread by ±Jitter.
func (m *Model) backoff(retry int) time.Duration {
	d := m.cfg.BaseDelay << min(retry-1, 30)
	if d <= 0 || d > m.cfg.MaxDelay {
		d = m.cfg.MaxDelay
	}
	if m.cfg.Jitter > 0 {
		f := 1 + m.cfg.Jitter*(2*rand.Float64()-1)
		d = time.Duration(float64(d) * f)
	}
	return d
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Stream runs Generate and returns its reply as a one-chunk stream: a
// summary is only useful whole, and retrying a half-read stream is unsound.
func (m *Model) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, input, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

// WarmUp warms every candidate that has a WarmUp(ctx) error method,
// stopping at the first error.
func (m *Model) WarmUp(ctx context.Context) error {
	for _, c := range m.cfg.Candidates {
		if w, ok := c.Model.(interface{ WarmUp(context.Context) error }); ok {
			if err := w.WarmUp(ctx); err != nil {
				return fmt.Errorf("failover: warm up %s: %w", c.Name, err)
			}
		}
	}
	return nil
}

// Close waits, until ctx ends, for the calls still running (those abandoned
// by AttemptTimeout or a cancelled ctx finish in the background), then closes
// every candidate that has a Close(ctx) error method, and joins the errors.
// When ctx ends first, the error says how many calls are still running; the
// candidates are closed all the same.
func (m *Model) Close(ctx context.Context) error {
	var errs []error
	if err := m.calls.wait(ctx); err != nil {
		errs = append(errs, err)
	}
	for _, c := range m.cfg.Candidates {
		if cl, ok := c.Model.(interface{ Close(context.Context) error }); ok {
			if err := cl.Close(ctx); err != nil {
				errs = append(errs, fmt.Errorf("failover: close %s: %w", c.Name, err))
			}
		}
	}
	return errors.Join(errs...)
}

// GetType names the component for Eino callbacks.
func (m *Model) GetType() string { return "FailoverChatModel" }

// Attempts returns the attempts recorded on a reply made by Model, or nil.
func Attempts(msg *schema.Message) []Attempt {
	if msg == nil || msg.Extra == nil {
		return nil
	}
	a, _ := msg.Extra[AttemptsKey].([]Attempt)
	return a
}

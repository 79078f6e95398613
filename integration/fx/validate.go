package compactfx

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// Validate checks every setting and returns all problems at once, joined;
// each names the config key and the bad value.
func (c *Config) Validate() error {
	v := &validator{}
	v.model("model", c.Model, c.Model.BaseURL != "")
	switch c.Summarizer.Provider {
	case ProviderAuto, ProviderOffline:
	case ProviderOpenAI:
		if c.Summarizer.BaseURL == "" && c.Model.BaseURL == "" {
			v.add("summarizer.provider", c.Summarizer.Provider, "needs summarizer.base_url or model.base_url (env %s or %s)", EnvSummarizerBaseURL, EnvModelBaseURL)
		}
	default:
		v.add("summarizer.provider", c.Summarizer.Provider, "must be one of %q, %q, %q", ProviderAuto, ProviderOffline, ProviderOpenAI)
	}
	sm := c.Summarizer
	v.model("summarizer", ModelConfig{BaseURL: sm.BaseURL, Model: sm.Model, Timeout: sm.Timeout, MaxTokens: sm.MaxTokens}, false)
	// With the agent's endpoint and model name, the model.model error above
	// already says what is missing.
	if ep, online := c.SummarizerEndpoint(); online && ep.Model == "" && !(sm.BaseURL == "" && c.Model.BaseURL != "") {
		v.add("summarizer.model", sm.Model, "is required when the summarizer has an endpoint and model.model is empty")
	}
	if sm.Retries < 0 {
		v.add("summarizer.retries", sm.Retries, "must be at least 0")
	}
	if sm.RetryBaseDelay <= 0 {
		v.add("summarizer.retry_base_delay", sm.RetryBaseDelay.String(), "must be above 0")
	}
	if sm.RetryMaxDelay <= 0 {
		v.add("summarizer.retry_max_delay", sm.RetryMaxDelay.String(), "must be above 0")
	}
	if sm.AttemptTimeout < 0 {
		v.add("summarizer.attempt_timeout", sm.AttemptTimeout.String(), "must be at least 0 (0 = no per-attempt limit)")
	}
	if sm.CoolDown < 0 {
		v.add("summarizer.cool_down", sm.CoolDown.String(), "must be at least 0 (0 = always call the endpoint)")
	}
	c.Compaction.validate(v)
	c.Compaction.Archive.validate(v, c.Store)
	if c.Agent.MaxSteps < 1 {
		v.add("agent.max_steps", c.Agent.MaxSteps, "must be at least 1")
	}
	if c.Inspect.MaxConversations < 1 {
		v.add("inspect.max_conversations", c.Inspect.MaxConversations, "must be at least 1")
	}
	c.Store.validate(v)
	return errors.Join(v.errs...)
}

// SummarizerEndpoint resolves which endpoint writes summaries: the
// summarizer's own settings, with empty fields taken from Config.Model. It
// reports online=false when the offline summarizer is to be used.
func (c *Config) SummarizerEndpoint() (ep ModelConfig, online bool) {
	s := c.Summarizer
	if s.Provider == ProviderOffline {
		return ModelConfig{}, false
	}
	ep = ModelConfig{BaseURL: s.BaseURL, APIKey: s.APIKey, Model: s.Model, Timeout: s.Timeout, MaxTokens: s.MaxTokens, WarmUp: s.WarmUp}
	if ep.BaseURL == "" {
		ep.BaseURL = c.Model.BaseURL
		if ep.APIKey == "" {
			ep.APIKey = c.Model.APIKey
		}
	}
	if ep.Model == "" {
		ep.Model = c.Model.Model
	}
	return ep, ep.BaseURL != ""
}

// SummarizerIsAgentModel reports whether the summarizer is the agent's own
// model: online, at the agent's endpoint (model.base_url), with the agent's
// model name. Its requests can then read the provider's prompt cache of the
// agent's requests, so compaction.summarize.cache_aligned defaults to on.
func (c *Config) SummarizerIsAgentModel() bool {
	ep, online := c.SummarizerEndpoint()
	return online && ep.BaseURL == c.Model.BaseURL && ep.Model == c.Model.Model
}

func (c CompactionConfig) validate(v *validator) {
	if !validStrategy(c.Strategy, true) {
		v.add("compaction.strategy", c.Strategy, "must be one of %q, %q, %q, %q", StrategySummarize, StrategySlide, StrategyPrune, StrategyPipeline)
	}
	c.Prices.validate(v)
	if c.ContextWindow < 1 {
		v.add("compaction.context_window", c.ContextWindow, "must be a positive number of tokens")
	}
	c.validateFractions(v)
	c.Counter.validate(v)
	c.Summarize.validate(v)
	c.Slide.validate(v)
	c.Prune.validate(v)
	c.validatePipeline(v)
}

// validateFractions checks compact_at, compact_to and prepare_at. Each
// fraction is checked against the ones before it only when those are
// valid: a bad compact_at would otherwise be reported again as a bad
// compact_to, and both again as a bad prepare_at.
func (c CompactionConfig) validateFractions(v *validator) {
	atOK := c.CompactAt > 0 && c.CompactAt <= 1
	if !atOK {
		v.add("compaction.compact_at", c.CompactAt, "must be in (0, 1]")
	}
	toOK := c.CompactTo > 0 && c.CompactTo < c.CompactAt
	if !atOK {
		toOK = c.CompactTo > 0 && c.CompactTo < 1
	}
	if !toOK {
		if atOK {
			v.add("compaction.compact_to", c.CompactTo, "must be in (0, compaction.compact_at=%v)", c.CompactAt)
		} else {
			v.add("compaction.compact_to", c.CompactTo, "must be in (0, 1) and below compaction.compact_at")
		}
	}
	if atOK && toOK && c.PrepareAt != 0 && !(c.PrepareAt > c.CompactTo && c.PrepareAt < c.CompactAt) {
		v.add("compaction.prepare_at", c.PrepareAt, "must be 0 (off) or in (compaction.compact_to=%v, compaction.compact_at=%v)", c.CompactTo, c.CompactAt)
	}
}

func (c CounterConfig) validate(v *validator) {
	switch c.Kind {
	case CounterApproximate:
	case CounterTiktoken:
		if c.Encoding != "o200k_base" && c.Encoding != "cl100k_base" {
			v.add("compaction.counter.encoding", c.Encoding, "must be \"o200k_base\" or \"cl100k_base\"")
		}
	default:
		v.add("compaction.counter.kind", c.Kind, "must be %q or %q", CounterApproximate, CounterTiktoken)
	}
	if cpt := c.CharsPerToken; !(cpt >= compaction.MinCharsPerToken && cpt <= compaction.MaxCharsPerToken) {
		v.add("compaction.counter.chars_per_token", cpt, "must be in [%v, %v]", compaction.MinCharsPerToken, compaction.MaxCharsPerToken)
	}
	if n := c.TokensPerImage; n < compaction.NoCharge || n > compaction.MaxAttachmentCharge {
		v.add("compaction.counter.tokens_per_image", n, "must be in [0, %d] (0 or -1 charges nothing)", compaction.MaxAttachmentCharge)
	}
	if n := c.TokensPerFile; n < compaction.NoCharge || n > compaction.MaxAttachmentCharge {
		v.add("compaction.counter.tokens_per_file", n, "must be in [0, %d] (0 or -1 charges nothing)", compaction.MaxAttachmentCharge)
	}
}

func (s SummarizeConfig) validate(v *validator) {
	if s.MinKeepSteps < 0 {
		v.add("compaction.summarize.min_keep_steps", s.MinKeepSteps, "must be at least 0")
	}
	if n := s.ApproximateSummaryTokens; n != nil && *n < 1 {
		v.add("compaction.summarize.approximate_summary_tokens", *n, "must be at least 1 (leave the key out for the library's prior, then what the summarizer's replies show)")
	}
	if s.MaxSummarizerInputTokens < 0 {
		v.add("compaction.summarize.max_summarizer_input_tokens", s.MaxSummarizerInputTokens, "must be at least 0 (0 = no cap)")
	}
	if n := s.MaxTextTokens; n != nil && *n != 0 && *n < 64 {
		v.add("compaction.summarize.max_text_tokens", *n, "must be 0 (no cap) or at least 64 (leave the key out for the library's 2,048)")
	}
	if s.Ledger.MaxTokens < 0 {
		v.add("compaction.summarize.ledger.max_tokens", s.Ledger.MaxTokens, "must be at least 0 (0 = sized from the target)")
	}
	if s.Ledger.MaxRemembered < 1 {
		v.add("compaction.summarize.ledger.max_remembered", s.Ledger.MaxRemembered, "must be at least 1")
	}
}

func (s SlideConfig) validate(v *validator) {
	if s.MinKeepSteps < 0 {
		v.add("compaction.slide.min_keep_steps", s.MinKeepSteps, "must be at least 0")
	}
	if s.NoNote && s.OmissionNote != "" {
		v.add("compaction.slide.omission_note", s.OmissionNote, "cannot be set together with compaction.slide.no_note = true")
	}
}

func (p PruneConfig) validate(v *validator) {
	if p.MinKeepSteps < 1 {
		v.add("compaction.prune.min_keep_steps", p.MinKeepSteps, "must be at least 1")
	}
	if p.MinTokens < 0 {
		v.add("compaction.prune.min_tokens", p.MinTokens, "must be at least 0")
	}
}

func (c CompactionConfig) validatePipeline(v *validator) {
	if c.Strategy == StrategyPipeline && len(c.Pipeline) == 0 {
		v.add("compaction.pipeline", "[]", "must list at least one strategy when compaction.strategy is %q", StrategyPipeline)
	}
	for i, s := range c.Pipeline {
		if !validStrategy(s, false) {
			v.add(fmt.Sprintf("compaction.pipeline[%d]", i), s, "must be one of %q, %q, %q", StrategySummarize, StrategySlide, StrategyPrune)
		}
	}
}

func validStrategy(s string, pipelineOK bool) bool {
	ok := []string{StrategySummarize, StrategySlide, StrategyPrune}
	if pipelineOK {
		ok = append(ok, StrategyPipeline)
	}
	return slices.Contains(ok, canonicalStrategy(s))
}

// canonicalStrategy maps a strategy written with the name its markers carry
// ("summarization", "sliding_window", "tool_result_pruning") onto the
// configuration's name for it; any other name is returned as it is.
func canonicalStrategy(s string) string {
	switch s {
	case compaction.StrategySummarization:
		return StrategySummarize
	case compaction.StrategySlidingWindow:
		return StrategySlide
	case compaction.StrategyToolResultPruning:
		return StrategyPrune
	}
	return s
}

type validator struct{ errs []error }

func (v *validator) add(key string, value any, format string, args ...any) {
	v.errs = append(v.errs, &settingError{key: key, msg: fmt.Sprintf("config: %s = %#v: %s", key, value, fmt.Sprintf(format, args...))})
}

// addHidden is add for a value that may hold a secret: the error names the
// key and says the value is not shown.
func (v *validator) addHidden(key, msg string) {
	v.errs = append(v.errs, &settingError{key: key, msg: fmt.Sprintf("config: %s (value not shown: it may hold a secret): %s", key, msg)})
}

// settingError is one problem Validate found, with the key it is about, so
// LoadInto can say where the value came from.
type settingError struct{ key, msg string }

func (e *settingError) Error() string { return e.msg }

func (v *validator) model(prefix string, m ModelConfig, online bool) {
	if m.BaseURL != "" {
		u, err := url.Parse(m.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			v.add(prefix+".base_url", RedactURL(m.BaseURL), "must be an http or https URL")
		}
	}
	if online && m.Model == "" {
		v.add(prefix+".model", m.Model, "is required when an endpoint is configured")
	}
	if m.Timeout <= 0 {
		v.add(prefix+".timeout", m.Timeout.String(), "must be above 0")
	}
	if m.MaxTokens < 0 {
		v.add(prefix+".max_tokens", m.MaxTokens, "must be at least 0 (0 = server default)")
	}
}

func (s StoreConfig) validate(v *validator) {
	switch s.Kind {
	case StoreNone, StoreMemory:
	case StoreRedis:
		if s.Addr == "" {
			v.add("store.addr", s.Addr, "is required with store.kind %q (env %s)", StoreRedis, EnvRedisAddr)
		} else {
			v.hostPort("store.addr", s.Addr)
		}
	default:
		v.add("store.kind", s.Kind, "must be one of %q, %q, %q", StoreNone, StoreMemory, StoreRedis)
	}
	if s.DB < 0 {
		v.add("store.db", s.DB, "must be at least 0")
	}
	for _, d := range []struct {
		key string
		v   Duration
	}{{"store.ttl", s.TTL}, {"store.lease", s.Lease}, {"store.max_wait", s.MaxWait}, {"store.timeout", s.Timeout}} {
		if d.v <= 0 {
			v.add(d.key, d.v.String(), "must be above 0")
		}
	}
	if s.Lease > 0 && s.MaxWait > s.Lease {
		v.add("store.max_wait", s.MaxWait.String(), "must be at most store.lease (%s)", s.Lease.String())
	}
	if s.MaxEntryBytes < 1 {
		v.add("store.max_entry_bytes", s.MaxEntryBytes, "must be at least 1")
	}
	if strings.ContainsAny(s.KeyPrefix, "{}") {
		v.add("store.key_prefix", s.KeyPrefix, "must not contain '{' or '}'")
	}
	if s.AuthKeyEnv != "" && !envName.MatchString(s.AuthKeyEnv) {
		// It may be the key itself, written where its variable's name goes.
		v.addHidden("store.auth_key_env", "must name an environment variable (letters, digits and '_', not starting with a digit), not hold the key")
	}
}

// hostPort checks that addr is host:port (a name or an IP, and a port in
// 1-65535). A URL or a connection string is refused without echoing what
// may be a password in it: a URL is shown redacted, anything else that is
// not made of a host:port's characters is not shown.
func (v *validator) hostPort(key, addr string) {
	host, port, err := net.SplitHostPort(addr)
	if err == nil && hostChars.MatchString(host) {
		if p, err := strconv.Atoi(port); err == nil && p >= 1 && p <= 65535 {
			return
		}
	}
	const want = "must be host:port, e.g. redis:6379"
	switch {
	case strings.Contains(addr, "://"):
		v.add(key, RedactURL(addr), "%s, not a URL: the user goes in store.username, the password in store.password (env %s), the database in store.db, and rediss:// is store.tls: true", want, EnvRedisPassword)
	case hostPortChars.MatchString(addr):
		v.add(key, addr, "%s", want)
	default:
		v.addHidden(key, want+" (user, password and options have keys of their own: store.username, store.password, store.db, store.tls)")
	}
}

var (
	// hostChars are those of a host name, an IPv4 address or an IPv6 one
	// (with a zone) as net.SplitHostPort returns them.
	hostChars = regexp.MustCompile(`^[A-Za-z0-9._%:-]+$`)
	// hostPortChars are those of host:port, brackets included.
	hostPortChars = regexp.MustCompile(`^[A-Za-z0-9._%:\[\]-]*$`)
)

// envName is the shape of an environment variable's name.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

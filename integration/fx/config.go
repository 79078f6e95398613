package compactfx

import (
	"time"

	"github.com/einocompact/einocompact/integration/inspect"
	"github.com/einocompact/einocompact/integration/redisstore"
	"github.com/einocompact/einocompact/summarizer/failover"
)

// Config is everything Module needs. Start from DefaultConfig (Load and
// LoadWithEnv do): a key missing from the YAML keeps its default, while a key present
// with a zero value means zero and is validated as such, so a typo'd or
// emptied setting fails loudly instead of silently taking a default.
type Config struct {
	// Model is the agent's own chat model. Environment: OPENAI_BASE_URL,
	// OPENAI_API_KEY, OPENAI_MODEL.
	Model ModelConfig `yaml:"model"`
	// Summarizer is the chat model that writes compaction summaries.
	// Environment: SUMMARIZER_BASE_URL, SUMMARIZER_API_KEY, SUMMARIZER_MODEL.
	Summarizer SummarizerConfig `yaml:"summarizer"`
	// Compaction decides when and how the conversation is compacted.
	Compaction CompactionConfig `yaml:"compaction"`
	// Agent holds settings for the application's agent; the module does
	// not read them.
	Agent AgentConfig `yaml:"agent"`
	// Inspect records compaction for the inspector (integration/inspect).
	Inspect InspectConfig `yaml:"inspect"`
	// Store shares compactions between replicas (compaction.Store).
	Store StoreConfig `yaml:"store"`
}

// ModelConfig points at an OpenAI-compatible chat-completions endpoint
// (OpenAI, vLLM, llama.cpp server, Ollama's /v1, ...).
type ModelConfig struct {
	// BaseURL is the API root; requests go to BaseURL + "/chat/completions".
	// Default "": no endpoint (the application decides what that means; the
	// example app replays a trajectory offline).
	BaseURL string `yaml:"base_url"`
	// APIKey is sent as a bearer token. Default "". Prefer the environment
	// to writing keys into files.
	APIKey string `yaml:"api_key"`
	// Model is the model name the server expects. Default "gpt-4o-mini";
	// servers such as vLLM or Ollama need their own name here.
	Model string `yaml:"model"`
	// Timeout bounds one HTTP request. Default 2m; must be > 0.
	Timeout Duration `yaml:"timeout"`
	// MaxTokens caps the completion length. Default 0: the server's default.
	MaxTokens int `yaml:"max_tokens"`
	// WarmUp sends a one-token request when the application starts, so a
	// wrong URL, model name or key fails the start. Default false.
	WarmUp bool `yaml:"warm_up"`
}

// Summarizer providers accepted in summarizer.provider.
const (
	// ProviderAuto uses an OpenAI-compatible endpoint when one is configured
	// for the summarizer or, failing that, for the agent's model, and the
	// offline summarizer otherwise.
	ProviderAuto = "auto"
	// ProviderOffline never touches the network.
	ProviderOffline = "offline"
	// ProviderOpenAI requires an endpoint.
	ProviderOpenAI = "openai"
)

// SummarizerConfig selects the model that writes summaries. Fields left
// empty under ProviderAuto or ProviderOpenAI are taken from Config.Model, so
// one endpoint serves both unless the summarizer is given its own.
type SummarizerConfig struct {
	// Provider is "auto" (default), "offline" or "openai".
	Provider string `yaml:"provider"`
	// BaseURL of the summarizer's endpoint. Default "": same as model.base_url.
	BaseURL string `yaml:"base_url"`
	// APIKey for the summarizer's endpoint. Default "": same as model.api_key
	// when the endpoint is the model's too.
	APIKey string `yaml:"api_key"`
	// Model name for summaries, often a cheaper one. Default "": model.model.
	Model string `yaml:"model"`
	// Timeout bounds one summarizer request. Default 2m; must be > 0.
	Timeout Duration `yaml:"timeout"`
	// MaxTokens caps the summary completion. Default 0: the server's default.
	MaxTokens int `yaml:"max_tokens"`
	// WarmUp sends a one-token request to the summarizer's endpoint when the
	// application starts. Default false.
	WarmUp bool `yaml:"warm_up"`
	// Retries is how many times a failed call to the endpoint is retried,
	// with exponential backoff and jitter, before falling back. Default 2;
	// >= 0.
	Retries int `yaml:"retries"`
	// RetryBaseDelay is the wait before the first retry; it doubles with
	// each retry. Default 200ms; > 0.
	RetryBaseDelay Duration `yaml:"retry_base_delay"`
	// RetryMaxDelay caps the wait between retries. Default 5s; > 0.
	RetryMaxDelay Duration `yaml:"retry_max_delay"`
	// AttemptTimeout bounds each call, retries included. Default 0: only
	// summarizer.timeout and the run's context bound it.
	AttemptTimeout Duration `yaml:"attempt_timeout"`
	// CoolDown is how long the endpoint is left alone after a call whose
	// every try failed: summaries come from the fallback meanwhile, without
	// a call or a wait, then one call tries the endpoint again. Default 1m;
	// 0 turns it off (every call tries the endpoint with all its retries).
	CoolDown Duration `yaml:"cool_down"`
	// FallbackOffline makes the offline extractive summarizer the last
	// resort when the endpoint keeps failing, so compaction still happens.
	// Default true.
	FallbackOffline bool `yaml:"fallback_offline"`
}

// Compaction strategies accepted in compaction.strategy and
// compaction.pipeline. They are verbs, what to do to the conversation; the
// markers on the messages a compactor writes (compaction.MarkerOf) name what
// was done, as nouns: "summarization", "sliding_window",
// "tool_result_pruning". Those marker names are accepted here as well, as
// other spellings of the same strategies (see canonicalStrategy), so a name
// copied from a marker works in a config file.
const (
	// StrategySummarize replaces the oldest groups with LLM-written summaries.
	StrategySummarize = "summarize"
	// StrategySlide drops the oldest turns and steps behind an omission note.
	StrategySlide = "slide"
	// StrategyPrune replaces old, large tool results with a placeholder.
	StrategyPrune = "prune"
	// StrategyPipeline tries the compactors listed in compaction.pipeline in
	// order until the target is met.
	StrategyPipeline = "pipeline"
)

// CompactionConfig configures the CompactionHook and its compactor.
type CompactionConfig struct {
	// Enabled registers the compaction hook. Default true.
	Enabled bool `yaml:"enabled"`
	// Strategy is "summarize" (default), "slide", "prune" or "pipeline".
	Strategy string `yaml:"strategy"`
	// ContextWindow is the agent model's context size in tokens.
	// Default 128000; must be >= 1.
	ContextWindow int `yaml:"context_window"`
	// CompactAt is the fraction of the window at which compaction starts.
	// Default 0.7.
	CompactAt float64 `yaml:"compact_at"`
	// CompactTo is the fraction of the window compaction aims for; a
	// summarization compaction may go deeper (AimAtCompactTo).
	// Default 0.4; 0 < compact_to < compact_at <= 1.
	CompactTo float64 `yaml:"compact_to"`
	// PrepareAt is the fraction of the window at which the compaction is
	// started in the background, so that the call reaching compact_at does
	// not wait for the summarizer (compaction.HookConfig.PrepareAt).
	// Default DefaultPrepareAt, 0: off, compactions are synchronous, as in
	// Go; docs/configuration.md says when to set it (0.45). Otherwise
	// compact_to < prepare_at < compact_at.
	PrepareAt float64 `yaml:"prepare_at"`
	// Prices are the agent's model's token prices, a preset name
	// ("openai", "anthropic", "no_cache") or {cached_input, cache_write,
	// output}; they choose how deep a compaction goes, and with them set
	// every compaction must pay for itself (compaction.HookConfig.Prices).
	// Default: left out, the depth chosen under the "openai" preset and no
	// compaction refused for its cost.
	Prices *PricesConfig `yaml:"prices,omitempty"`
	// DisableFallback turns off the model-free fallback
	// (compaction.HookConfig.DisableFallback): by default, whenever a
	// compaction (failed, declined or too small) leaves the next call
	// above context_window less 5 %, tool results are pruned, then the
	// sliding window drops the oldest turns. Default false.
	DisableFallback bool `yaml:"disable_fallback"`
	// AimAtCompactTo makes every compaction aim at compact_to
	// (compaction.HookConfig.AimAtCompactTo): by default a summarization
	// compaction goes deeper when the prices make that cheaper, keeping
	// the newest fifth of the window verbatim. Default false.
	AimAtCompactTo bool `yaml:"aim_at_compact_to"`
	// Archive keeps what compactions remove, for the recall tool
	// (compaction.HookConfig.Archive). Default kind none.
	Archive ArchiveConfig `yaml:"archive"`
	// Counter configures the local token counter.
	Counter CounterConfig `yaml:"counter"`
	// Summarize configures the "summarize" strategy.
	Summarize SummarizeConfig `yaml:"summarize"`
	// Slide configures the "slide" strategy.
	Slide SlideConfig `yaml:"slide"`
	// Prune configures the "prune" strategy.
	Prune PruneConfig `yaml:"prune"`
	// Pipeline lists the strategies the "pipeline" strategy tries, in order.
	// Default [prune, summarize]: the cheap pass first.
	Pipeline []string `yaml:"pipeline"`
}

// Counter kinds accepted in compaction.counter.kind.
const (
	// CounterApproximate counts code points of the rendering divided by
	// chars_per_token, plus flat charges for attachments.
	CounterApproximate = "approximate"
	// CounterTiktoken counts exactly with an OpenAI BPE encoding compiled
	// into the binary (counter.encoding).
	CounterTiktoken = "tiktoken"
)

// CounterConfig configures the token counter.
type CounterConfig struct {
	// Kind is "approximate" (default) or "tiktoken".
	Kind string `yaml:"kind"`
	// Encoding for the tiktoken counter: "o200k_base" (default, GPT-4o
	// family) or "cl100k_base" (GPT-4, GPT-3.5).
	Encoding string `yaml:"encoding"`
	// CharsPerToken for the approximate counter. Default 4.0; must lie in
	// [compaction.MinCharsPerToken, compaction.MaxCharsPerToken] (0.1, 100).
	CharsPerToken float64 `yaml:"chars_per_token"`
	// TokensPerImage is charged per image by either counter. Default 85;
	// 0 or -1 charges nothing. A file holds the defaults before it is read,
	// so a written 0 means zero; in Go the counters' own configs read 0 as
	// "the default" and spell zero compaction.NoCharge (-1), which is
	// accepted here too. At most compaction.MaxAttachmentCharge.
	TokensPerImage int `yaml:"tokens_per_image"`
	// TokensPerFile is charged per file, audio or video part by either
	// counter. Default 1000; 0 or -1 charges nothing (as TokensPerImage).
	// At most compaction.MaxAttachmentCharge.
	TokensPerFile int `yaml:"tokens_per_file"`
}

// SummarizeConfig configures the SummarizationCompactor.
type SummarizeConfig struct {
	// MinKeepSteps is how many newest agent steps are never summarized.
	// Default 1; >= 0.
	MinKeepSteps int `yaml:"min_keep_steps"`
	// ApproximateSummaryTokens is the planned size of one summary until
	// the compactor has seen its summarizer's replies. Default unset (nil):
	// the library's prior, the round's output budget (64 tokens plus a
	// sixth of what a round replaces, at most 512) plus the identifier
	// ledger's cap, which suits small windows too. It guides planning
	// only. A pointer, so that a key left out of the file is told apart
	// from a value written in it: a written value replaces the prior and
	// must be >= 1.
	ApproximateSummaryTokens *int `yaml:"approximate_summary_tokens,omitempty"`
	// SummaryInstruction replaces the built-in instruction when not empty.
	// Default "".
	SummaryInstruction string `yaml:"summary_instruction"`
	// RaiseOnFailure turns a failed round into an error for the agent run.
	// Default false: log it and keep the last successful round.
	RaiseOnFailure bool `yaml:"raise_on_failure"`
	// MaxSummarizerInputTokens caps the transcript one round sends to the
	// summarizer, so compaction can run however full the context is.
	// Default 0: no cap; >= 0.
	MaxSummarizerInputTokens int `yaml:"max_summarizer_input_tokens"`
	// MaxTextTokens caps each text of the summarizer's transcript: a longer
	// one is shown as its head and tail. Default unset (nil): the library's
	// 2,048 tokens. A written value replaces it: 0 for no cap, otherwise at
	// least 64.
	MaxTextTokens *int `yaml:"max_text_tokens,omitempty"`
	// CacheAligned sends the summarizer the agent's last request as it was
	// sent (system prompt, tool schemas, messages) plus one instruction, so
	// that with the agent's own model as the summarizer the call reads the
	// provider's prompt cache (compaction.SummarizationConfig.CacheAligned).
	// Default unset (nil): on when the summarizer is the agent's model
	// (Config.SummarizerIsAgentModel: no summarizer block, or one naming
	// the agent's endpoint and model), off otherwise (a separate model, or
	// the offline summarizer, cannot read the agent's cache). A written
	// value wins.
	CacheAligned *bool `yaml:"cache_aligned,omitempty"`
	// Ledger configures the identifier ledger.
	Ledger LedgerConfig `yaml:"ledger"`
}

// LedgerConfig configures the identifier ledger, which appends to each
// summary, verbatim, the file paths, ids, URLs and error strings it lost.
type LedgerConfig struct {
	// Enabled turns the ledger on. Default true.
	Enabled bool `yaml:"enabled"`
	// MaxTokens caps the appended block. Default 0: sized from the
	// compaction's target (compaction.LedgerConfig.MaxTokens); >= 0.
	MaxTokens int `yaml:"max_tokens"`
	// MaxRemembered caps the identifiers a summary's marker carries forward.
	// Default 200; >= 1.
	MaxRemembered int `yaml:"max_remembered"`
}

// SlideConfig configures the sliding-window compactor.
type SlideConfig struct {
	// MinKeepSteps is how many newest agent steps are never dropped.
	// Default 1; >= 0.
	MinKeepSteps int `yaml:"min_keep_steps"`
	// OmissionNote replaces the built-in note; {num_removed} is substituted.
	// Default "": the built-in note.
	OmissionNote string `yaml:"omission_note"`
	// NoNote drops messages without leaving a note. Default false.
	NoNote bool `yaml:"no_note"`
}

// PruneConfig configures the tool-result pruning compactor.
type PruneConfig struct {
	// MinKeepSteps is how many newest steps keep their tool results.
	// Default 1; >= 1.
	MinKeepSteps int `yaml:"min_keep_steps"`
	// MinTokens: results at or under this size are left alone. Default 200; >= 0.
	MinTokens int `yaml:"min_tokens"`
	// Placeholder replaces the built-in placeholder; {tool_name} is
	// substituted. Default "": the built-in placeholder.
	Placeholder string `yaml:"placeholder"`
}

// AgentConfig holds settings for the agent an application builds. The
// module builds no agent and reads neither field: they give the
// application's agent.Config a place in the same file (the fx demo passes
// both on). Validate checks MaxSteps.
type AgentConfig struct {
	// MaxSteps is the number of model calls allowed per run. Default 20; >= 1.
	MaxSteps int `yaml:"max_steps"`
	// Instruction is the system prompt. Default "": the application's own.
	Instruction string `yaml:"instruction"`
}

// InspectConfig turns on the compaction inspector: the module then provides
// an *inspect.Recorder that records every model call of its CompactionHook.
// The module serves nothing: mount the recorder's pages yourself with
// (*inspect.Recorder).Register on a private mux (see docs/inspect.md).
type InspectConfig struct {
	// Enabled records compaction. Default false.
	Enabled bool `yaml:"enabled"`
	// CaptureContent also keeps, redacted, what each summarizer round
	// replaced and the summary that replaced it. Default false: no
	// conversation text is kept.
	CaptureContent bool `yaml:"capture_content"`
	// MaxConversations is how many conversations are kept; the least
	// recently updated is evicted first. Default 64; >= 1.
	MaxConversations int `yaml:"max_conversations"`
}

// Store kinds accepted in store.kind.
const (
	// StoreNone keeps compactions in each hook (the default).
	StoreNone = "none"
	// StoreMemory shares them between the hooks of one process.
	StoreMemory = "memory"
	// StoreRedis shares them between processes through Redis
	// (integration/redisstore); see docs/deployment.md.
	StoreRedis = "redis"
)

// StoreConfig selects where compactions are shared (HookConfig.Store).
// With kind redis the module opens a client when the application starts
// and closes it when it stops, after the hooks.
type StoreConfig struct {
	// Kind is "none" (default), "memory" or "redis".
	Kind string `yaml:"kind"`
	// Addr is Redis' host:port. Required with kind redis. Environment:
	// EINOCOMPACT_REDIS_ADDR.
	Addr string `yaml:"addr"`
	// Username for Redis ACLs. Default "".
	Username string `yaml:"username"`
	// Password for Redis. Default "". Prefer the environment
	// (EINOCOMPACT_REDIS_PASSWORD) to writing it into files; it is never
	// stored in Redis nor logged.
	Password string `yaml:"password"`
	// DB selects the Redis database. Default 0; >= 0.
	DB int `yaml:"db"`
	// TLS connects with TLS, verifying the server against the system's
	// roots. Default false.
	TLS bool `yaml:"tls"`
	// KeyPrefix namespaces every key. Default "einocompact:".
	KeyPrefix string `yaml:"key_prefix"`
	// TTL is how long a shared compaction is kept. Default 10m; > 0.
	TTL Duration `yaml:"ttl"`
	// Lease is the longest a claim on a conversation holds while it is
	// compacted (its holder renews it up to this). Default 2m; > 0.
	Lease Duration `yaml:"lease"`
	// MaxWait is the longest a replica waits for a compaction another
	// replica holds a claim on, however long the holder renews it (its
	// summarizer may hang), before compacting the conversation itself
	// (HookConfig.StoreMaxWait). Default 4s; > 0 and at most lease.
	MaxWait Duration `yaml:"max_wait"`
	// Timeout bounds each store call; a failed or slow one makes the hook
	// compact locally for 5s. Default 250ms; > 0.
	Timeout Duration `yaml:"timeout"`
	// MaxEntryBytes caps one shared compaction. Default 4194304; >= 1.
	MaxEntryBytes int `yaml:"max_entry_bytes"`
	// AuthKeyEnv names the environment variable holding the key that
	// authenticates shared compactions with kind redis (HMAC-SHA256 over
	// each entry and key_prefix; integration/redisstore NewHMAC): a replica then
	// applies only entries written with the same key, so that write access
	// to Redis does not let anyone choose the summaries the agents read.
	// The key must be at least 32 bytes; every replica sharing the store
	// needs it. Default "": entries are not authenticated.
	AuthKeyEnv string `yaml:"auth_key_env"`
	// Scope is added to the identity under which compactions are shared:
	// name what the compactor's settings do not show, such as the
	// summarizer's model or a prompt version. Default "".
	Scope string `yaml:"scope"`
}

// DefaultConfig returns a Config holding every default documented on its
// fields and in docs/configuration.md.
func DefaultConfig() *Config {
	return &Config{
		Model: ModelConfig{
			Model:   "gpt-4o-mini",
			Timeout: Duration(2 * time.Minute),
		},
		Summarizer: SummarizerConfig{
			Provider:        ProviderAuto,
			Timeout:         Duration(2 * time.Minute),
			Retries:         2,
			RetryBaseDelay:  Duration(200 * time.Millisecond),
			RetryMaxDelay:   Duration(5 * time.Second),
			CoolDown:        Duration(failover.DefaultCoolDown),
			FallbackOffline: true,
		},
		Compaction: CompactionConfig{
			Enabled:       true,
			Strategy:      StrategySummarize,
			ContextWindow: 128000,
			CompactAt:     0.7,
			CompactTo:     0.4,
			PrepareAt:     DefaultPrepareAt,
			Counter: CounterConfig{
				Kind:           CounterApproximate,
				Encoding:       "o200k_base",
				CharsPerToken:  4.0,
				TokensPerImage: 85,
				TokensPerFile:  1000,
			},
			Summarize: SummarizeConfig{MinKeepSteps: 1,
				Ledger: LedgerConfig{Enabled: true, MaxRemembered: 200}},
			Slide:    SlideConfig{MinKeepSteps: 1},
			Prune:    PruneConfig{MinKeepSteps: 1, MinTokens: 200},
			Pipeline: []string{StrategyPrune, StrategySummarize},
			Archive:  defaultArchive(),
		},
		Agent:   AgentConfig{MaxSteps: 20},
		Inspect: InspectConfig{MaxConversations: inspect.DefaultMaxConversations},
		Store: StoreConfig{Kind: StoreNone, KeyPrefix: redisstore.DefaultKeyPrefix, TTL: Duration(10 * time.Minute),
			Lease: Duration(2 * time.Minute), MaxWait: Duration(4 * time.Second), Timeout: Duration(250 * time.Millisecond), MaxEntryBytes: redisstore.DefaultMaxEntryBytes},
	}
}

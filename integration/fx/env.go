package compactfx

import "github.com/einocompact/einocompact/openaienv"

// The environment variables ApplyEnv reads. A variable set to a non-empty
// value overrides the file; an empty one is ignored, as most shells make it
// hard to tell unset from empty.
const (
	// EnvModelBaseURL overrides model.base_url.
	EnvModelBaseURL = openaienv.EnvBaseURL
	// EnvModelAPIKey overrides model.api_key.
	EnvModelAPIKey = openaienv.EnvAPIKey
	// EnvModelName overrides model.model.
	EnvModelName = openaienv.EnvModel
	// EnvSummarizerBaseURL overrides summarizer.base_url.
	EnvSummarizerBaseURL = "SUMMARIZER_BASE_URL"
	// EnvSummarizerAPIKey overrides summarizer.api_key.
	EnvSummarizerAPIKey = "SUMMARIZER_API_KEY"
	// EnvSummarizerModel overrides summarizer.model.
	EnvSummarizerModel = "SUMMARIZER_MODEL"
	// EnvRedisAddr overrides store.addr.
	EnvRedisAddr = "EINOCOMPACT_REDIS_ADDR"
	// EnvRedisPassword overrides store.password.
	EnvRedisPassword = "EINOCOMPACT_REDIS_PASSWORD"
)

// ApplyEnv overrides the endpoint settings of cfg from the environment, as
// read by lookup (os.LookupEnv in production, a map in tests). Environment
// wins over the file so that keys need never be written to disk.
func ApplyEnv(cfg *Config, lookup func(string) (string, bool)) { applyEnv(cfg, lookup) }

// applyEnv is ApplyEnv; it returns the config keys it set, each with the
// variable that set it, so errors can say where a bad value came from. The
// agent's endpoint is read by openaienv.FromEnv, as the quickstart reads it.
func applyEnv(cfg *Config, lookup func(string) (string, bool)) map[string]string {
	from := map[string]string{}
	put := func(dst *string, key, name, v string) {
		if v != "" {
			*dst = v
			from[key] = name
		}
	}
	set := func(dst *string, key, name string) {
		if v, ok := lookup(name); ok {
			put(dst, key, name, v)
		}
	}
	ep := openaienv.FromEnv(lookup)
	put(&cfg.Model.BaseURL, "model.base_url", EnvModelBaseURL, ep.BaseURL)
	put(&cfg.Model.APIKey, "model.api_key", EnvModelAPIKey, ep.APIKey)
	put(&cfg.Model.Model, "model.model", EnvModelName, ep.Model)
	set(&cfg.Summarizer.BaseURL, "summarizer.base_url", EnvSummarizerBaseURL)
	set(&cfg.Summarizer.APIKey, "summarizer.api_key", EnvSummarizerAPIKey)
	set(&cfg.Summarizer.Model, "summarizer.model", EnvSummarizerModel)
	set(&cfg.Store.Addr, "store.addr", EnvRedisAddr)
	set(&cfg.Store.Password, "store.password", EnvRedisPassword)
	return from
}

package compactfx

// The environment variables ApplyEnv reads. A variable set to a non-empty
// value overrides the file; an empty one is ignored, as most shells make it
// hard to tell unset from empty.
const (
	// EnvModelBaseURL overrides model.base_url.
	EnvModelBaseURL = "OPENAI_BASE_URL"
	// EnvModelAPIKey overrides model.api_key.
	EnvModelAPIKey = "OPENAI_API_KEY"
	// EnvModelName overrides model.model.
	EnvModelName = "OPENAI_MODEL"
	// EnvSummarizerBaseURL overrides summarizer.base_url.
	EnvSummarizerBaseURL = "SUMMARIZER_BASE_URL"
	// EnvSummarizerAPIKey overrides summarizer.api_key.
	EnvSummarizerAPIKey = "SUMMARIZER_API_KEY"
	// EnvSummarizerModel overrides summarizer.model.
	EnvSummarizerModel = "SUMMARIZER_MODEL"
)

// ApplyEnv overrides the endpoint settings of cfg from the environment, as
// read by lookup (os.LookupEnv in production, a map in tests). Environment
// wins over the file so that keys need never be written to disk.
func ApplyEnv(cfg *Config, lookup func(string) (string, bool)) {
	set := func(dst *string, name string) {
		if v, ok := lookup(name); ok && v != "" {
			*dst = v
		}
	}
	set(&cfg.Model.BaseURL, EnvModelBaseURL)
	set(&cfg.Model.APIKey, EnvModelAPIKey)
	set(&cfg.Model.Model, EnvModelName)
	set(&cfg.Summarizer.BaseURL, EnvSummarizerBaseURL)
	set(&cfg.Summarizer.APIKey, EnvSummarizerAPIKey)
	set(&cfg.Summarizer.Model, EnvSummarizerModel)
}

// Package openaienv reads an OpenAI-compatible endpoint from the environment
// (OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL), as the quickstart, the fx
// module and the fx demo all do, and turns the bare errors a misconfigured
// endpoint gives into ones that say what is missing and how to set it.
//
// The eino-ext client posts to BaseURL + "/chat/completions". Left out, the
// base URL is OpenAI's, which needs a key; a local server's base URL usually
// ends in /v1. Without this package a missing key shows up as a DNS failure
// (offline) or a 401, and a base URL without /v1 as
// "404 page not found": Check catches the first before any call, and
// Explain adds the missing piece to the second.
package openaienv

import (
	"errors"
	"fmt"
)

// The environment variables FromEnv reads. A variable set to "" counts as
// unset: most shells make the two hard to tell apart.
const (
	// EnvBaseURL is the endpoint's base URL, e.g. http://localhost:11434/v1.
	EnvBaseURL = "OPENAI_BASE_URL"
	// EnvAPIKey is the endpoint's API key.
	EnvAPIKey = "OPENAI_API_KEY"
	// EnvModel is the model's name.
	EnvModel = "OPENAI_MODEL"
)

// DefaultModel is the model ModelOrDefault names when none is set.
const DefaultModel = "gpt-4o-mini"

// OpenAIBaseURL is the base URL the eino-ext client uses when BaseURL is "".
const OpenAIBaseURL = "https://api.openai.com/v1"

// Endpoint is an OpenAI-compatible endpoint: the three settings, and for
// messages the names a user sets them by.
type Endpoint struct {
	// BaseURL is the endpoint's base URL; "" means OpenAI's.
	BaseURL string
	// APIKey is sent as a bearer token; "" sends none.
	APIKey string
	// Model names the model; "" means DefaultModel (see ModelOrDefault).
	Model string
	// BaseURLSetting and APIKeySetting name where the user sets BaseURL and
	// APIKey, for messages. Default: EnvBaseURL and EnvAPIKey.
	BaseURLSetting, APIKeySetting string
}

// FromEnv reads the endpoint from the environment with lookup
// (os.LookupEnv in a program, a map in tests). Unset values stay "".
func FromEnv(lookup func(string) (string, bool)) Endpoint {
	get := func(name string) string {
		if v, ok := lookup(name); ok {
			return v
		}
		return ""
	}
	return Endpoint{BaseURL: get(EnvBaseURL), APIKey: get(EnvAPIKey), Model: get(EnvModel)}
}

// ModelOrDefault returns Model, or DefaultModel when it is "".
func (e Endpoint) ModelOrDefault() string {
	if e.Model == "" {
		return DefaultModel
	}
	return e.Model
}

// ErrNoAPIKey is wrapped by Check's error: no base URL (so OpenAI's, which
// needs a key) and no key.
var ErrNoAPIKey = errors.New("openaienv: no API key")

// Check reports, before any request, a configuration that cannot work: no
// base URL and no key. OpenAI's API refuses every request without a key
// (or, offline, cannot be resolved at all). A base URL without a key is
// fine: local servers often need none, and a 401 gets Explain's hint.
func (e Endpoint) Check() error {
	if e.BaseURL == "" && e.APIKey == "" {
		return fmt.Errorf("%w: %s is not set, and with %s unset the endpoint is OpenAI's (%s), which needs one: "+
			"set %s to your key, or %s to an OpenAI-compatible server (e.g. http://localhost:11434/v1 for Ollama)",
			ErrNoAPIKey, e.apiKeySetting(), e.baseURLSetting(), OpenAIBaseURL, e.apiKeySetting(), e.baseURLSetting())
	}
	return nil
}

func (e Endpoint) baseURLSetting() string {
	if e.BaseURLSetting != "" {
		return e.BaseURLSetting
	}
	return EnvBaseURL
}

func (e Endpoint) apiKeySetting() string {
	if e.APIKeySetting != "" {
		return e.APIKeySetting
	}
	return EnvAPIKey
}

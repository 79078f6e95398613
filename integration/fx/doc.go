// Package compactfx wires einocompact into go.uber.org/fx applications from a
// configuration file.
//
// The package lives in the integration/fx folder but is named compactfx so
// that it does not shadow go.uber.org/fx in the files that import both.
//
// Module(cfg) provides, from a *Config:
//
//   - the compaction.TokenCounter named by compaction.counter;
//   - the summarizer chat model (type Summarizer): an OpenAI-compatible client
//     behind retries and a fallback to the offline extractive summarizer when
//     an endpoint is configured, otherwise the offline summarizer alone;
//   - the compaction.Compactor chosen by compaction.strategy;
//   - the *compaction.CompactionHook, contributed to the hook group at
//     hooks.BeforeLLM, reporting every compaction to the observers in the
//     ObserverGroup value group and to the one a run's context carries
//     (WithObserver);
//   - the *inspect.Recorder of the compaction inspector, nil unless
//     inspect.enabled; when set, the hook entry is the hook wrapped by it
//     (integration/inspect), so every model call is recorded. The module
//     serves no page: mount it with (*inspect.Recorder).Register on a
//     private mux;
//   - a *hooks.Registry assembled from every HookEntry in the value group
//     HookGroup, so any application adds its own hook with one fx.Provide
//     (see AsHook);
//   - lifecycle: OnStart warms the registry up, OnStop closes it, both
//     bounded by the deadline fx puts on the lifecycle context.
//
// Configuration comes from YAML (LoadWithEnv, or LoadInto for a Config
// embedded in an application's own) with unknown keys rejected, environment
// overrides for the model endpoints (ApplyEnv) and validation whose errors
// name the key and the value (Config.Validate), all problems at once. The keys and
// their defaults are listed in docs/configuration.md.
package compactfx

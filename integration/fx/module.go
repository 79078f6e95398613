package compactfx

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"go.uber.org/fx"
	"go.uber.org/fx/fxevent"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/integration/inspect"
)

// Module returns the fx module that builds einocompact from cfg; see the
// package documentation for what it provides. cfg is validated when the
// container first needs it, and an invalid cfg fails the application's
// construction with errors naming the keys. The module provides *Config
// itself, so the application must not. A *slog.Logger in the container is
// used when present; otherwise slog.Default().
func Module(cfg *Config) fx.Option {
	return fx.Module("einocompact",
		fx.Provide(
			func() (*Config, error) {
				if cfg == nil {
					return nil, errors.New("compactfx: Module needs a *Config; start from DefaultConfig")
				}
				return cfg, cfg.Validate()
			},
			provideCounter,
			provideSummarizer,
			provideCompactor,
			provideRecorder,
			provideStore,
			provideArchive,
			provideHook,
			provideRegistry,
		),
		fx.Invoke(registerLifecycle),
	)
}

// WithSlogEventLogger routes fx's own event log (provides, invokes,
// lifecycle hooks, errors) through slog, using the container's *slog.Logger
// when there is one and slog.Default() otherwise. Pass it to fx.New.
// Every event is logged at Debug, failures included: fx returns each
// failure to the application (fx.New's Err, Start, Stop), which reports it
// once; logging it at Error as well printed a failed start three times
// more (the hook, the rollback, the start).
func WithSlogEventLogger() fx.Option {
	return fx.WithLogger(func(in loggerIn) fxevent.Logger {
		l := &fxevent.SlogLogger{Logger: orDefault(in.Logger)}
		l.UseLogLevel(slog.LevelDebug)
		l.UseErrorLevel(slog.LevelDebug)
		return l
	})
}

// loggerIn takes the application's logger when it provides one: the module
// must not provide *slog.Logger itself, or it would collide with the app's.
type loggerIn struct {
	fx.In
	Logger *slog.Logger `optional:"true"`
}

func orDefault(l *slog.Logger) *slog.Logger {
	if l != nil {
		return l
	}
	return slog.Default()
}

func provideCounter(cfg *Config) (compaction.TokenCounter, error) {
	return newCounter(cfg.Compaction.Counter)
}

type summarizerIn struct {
	fx.In
	Config *Config
	Logger *slog.Logger `optional:"true"`
}

func provideSummarizer(in summarizerIn) (Summarizer, error) {
	return newSummarizer(context.Background(), in.Config, orDefault(in.Logger))
}

type compactorIn struct {
	fx.In
	Config     *Config
	Summarizer Summarizer
	Logger     *slog.Logger `optional:"true"`
}

func provideCompactor(in compactorIn) (compaction.Compactor, error) {
	return newCompactor(context.Background(), in.Config.Compaction, compactorDeps{
		Summarizer:          in.Summarizer,
		SummarizerIsAgent:   in.Config.SummarizerIsAgentModel(),
		Logger:              orDefault(in.Logger),
		SummarizerMaxTokens: in.Config.Summarizer.MaxTokens,
	})
}

type hookIn struct {
	fx.In
	Config    *Config
	Compactor compaction.Compactor
	Counter   compaction.TokenCounter
	Recorder  *inspect.Recorder
	Store     moduleStore
	Archive   moduleArchive
	Logger    *slog.Logger          `optional:"true"`
	Observers []compaction.Observer `group:"einocompact.observers"`
}

// provideRecorder builds the inspector's recorder from the inspect keys:
// nil unless inspect.enabled.
func provideRecorder(in recorderIn) (*inspect.Recorder, error) {
	c := in.Config.Inspect
	if !c.Enabled {
		return nil, nil
	}
	return inspect.NewRecorder(&inspect.Config{MaxConversations: c.MaxConversations, CaptureContent: c.CaptureContent, Logger: orDefault(in.Logger)})
}

type recorderIn struct {
	fx.In
	Config *Config
	Logger *slog.Logger `optional:"true"`
}

type hookOut struct {
	fx.Out
	Hook    *compaction.CompactionHook
	Entries []HookEntry `group:"einocompact.hooks,flatten"`
}

func provideHook(in hookIn) (hookOut, error) {
	c := in.Config.Compaction
	h, err := compaction.NewCompactionHook(context.Background(), &compaction.HookConfig{
		Compactor:       in.Compactor,
		ContextWindow:   c.ContextWindow,
		CompactAt:       c.CompactAt,
		CompactTo:       c.CompactTo,
		PrepareAt:       c.PrepareAt,
		Prices:          c.Prices.prices(),
		DisableFallback: c.DisableFallback,
		AimAtCompactTo:  c.AimAtCompactTo,
		TokenCounter:    in.Counter,
		Logger:          orDefault(in.Logger),
		Observer:        dispatch{static: in.Observers},
		Store:           in.Store.Store,
		StoreScope:      in.Store.scope,
		StoreTimeout:    time.Duration(in.Config.Store.Timeout),
		StoreLease:      time.Duration(in.Config.Store.Lease),
		StoreMaxWait:    time.Duration(in.Config.Store.MaxWait),
		StoreTTL:        time.Duration(in.Config.Store.TTL),
		Archive:         in.Archive.Archive,
	})
	if err != nil {
		return hookOut{}, err
	}
	out := hookOut{Hook: h}
	if c.Enabled {
		var run hooks.Hook = h
		if in.Recorder != nil {
			if run, err = in.Recorder.Wrap(h); err != nil {
				return hookOut{}, err
			}
		}
		out.Entries = []HookEntry{{Point: hooks.BeforeLLM, Hook: run, Order: OrderCompaction, Name: h.Name()}}
	}
	return out, nil
}

package compactfx_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"go.uber.org/fx"

	"github.com/einocompact/einocompact/hooks"
	compactfx "github.com/einocompact/einocompact/integration/fx"
)

// newAuditHook is an application's own hook: it logs how many messages the
// conversation has after each tool call.
func newAuditHook(log *slog.Logger) hooks.Hook {
	return hooks.Func(func(ctx context.Context, s *hooks.State) error {
		log.InfoContext(ctx, "audit", "messages", len(s.Messages))
		return nil
	})
}

// startApp is docs/configuration.md's "Wiring it in your own fx
// application": einocompact's module, the application's logger and one of
// its own hooks in an fx app, started and stopped. useRegistry receives the
// registry to hand to agent.Config.Hooks.
func startApp(ctx context.Context, configPath string, logger *slog.Logger, useRegistry func(*hooks.Registry)) error {
	// docs/configuration.md:fx:begin
	cfg, err := compactfx.LoadWithEnv(configPath)
	if err != nil {
		return err
	}
	app := fx.New(
		fx.Supply(logger),               // your *slog.Logger: the module's, fx's and your hooks' logger
		compactfx.WithSlogEventLogger(), // fx's own events through that logger
		compactfx.Module(cfg),           // counter, summarizer, compactor, CompactionHook, *hooks.Registry, lifecycle
		fx.Provide(compactfx.AsHook(func(log *slog.Logger) compactfx.HookEntry {
			return compactfx.HookEntry{Point: hooks.AfterTool, Order: 10, Hook: newAuditHook(log)}
		})),
		fx.Invoke(useRegistry), // func(*hooks.Registry): hand it to agent.Config.Hooks
	)
	if err := app.Start(ctx); err != nil {
		return err
	}
	defer app.Stop(ctx)
	// docs/configuration.md:fx:end
	return nil
}

// ExampleModule wires einocompact into an fx application that supplies its
// own logger and hook, from a config file with the offline summarizer.
func ExampleModule() {
	dir, err := os.MkdirTemp("", "einocompact-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "einocompact.yaml")
	if err := os.WriteFile(path, []byte("summarizer:\n  provider: offline\ncompaction:\n  context_window: 8000\n"), 0o600); err != nil {
		panic(err)
	}
	var reg *hooks.Registry
	if err := startApp(context.Background(), path, slog.New(slog.DiscardHandler), func(r *hooks.Registry) { reg = r }); err != nil {
		panic(err)
	}
	fmt.Println("before_llm:", reg.Len(hooks.BeforeLLM), "after_tool:", reg.Len(hooks.AfterTool))
	// Output: before_llm: 1 after_tool: 1
}

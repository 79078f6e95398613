package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
)

// DefaultMaxSteps is the step budget when Config.MaxSteps is 0.
const DefaultMaxSteps = 20

// DefaultName is the graph name used when Config.Name is empty; callbacks and
// traces report the agent's graph under it.
const DefaultName = "EinocompactAgent"

// Config configures an Agent. New copies it; later changes have no effect.
type Config struct {
	// Model is the agent's own chat model; required. Tools are bound with
	// WithTools, so the model is not modified.
	Model model.ToolCallingChatModel
	// Tools the model may call; may be empty.
	Tools []tool.BaseTool
	// Instruction is the system prompt, prepended unless the conversation
	// already starts with a system message (as a carried-over one does).
	Instruction string
	// Hooks run at the six hook points; nil means none. Tools its hooks
	// provide (hooks.ToolProvider, such as the recall tool of a compaction
	// hook with an archive) are added to Tools unless a tool of that name is
	// there, and hooks that scope tool calls (hooks.ToolScoper) see every call.
	Hooks *hooks.Registry
	// MaxSteps caps the model calls per run; 0 means DefaultMaxSteps.
	MaxSteps int
	// Name names the graph for callbacks and tracing; "" means DefaultName.
	Name string
	// Logger receives warnings such as a run ending at MaxSteps; nil means slog.Default().
	Logger *slog.Logger
	// AbortOnToolError makes a tool's error end the run, returned wrapped by
	// Run. Default false: the error reaches the model as the call's result,
	// "error: " followed by the error's text, and a call to a tool the agent
	// does not have is answered the same way, so the model can correct
	// itself, as in any ReAct loop. Either way a cancelled or expired ctx
	// ends the run with an error wrapping ctx.Err().
	AbortOnToolError bool
}

// ErrInvalidConfig is wrapped by the errors New returns for a bad Config.
var ErrInvalidConfig = errors.New("agent: invalid config")

// validate checks cfg and returns a copy with defaults filled in. Errors name
// the field and the bad value.
func (cfg *Config) validate() (Config, error) {
	if cfg == nil {
		return Config{}, fmt.Errorf("%w: nil *Config", ErrInvalidConfig)
	}
	c := *cfg
	if c.Model == nil {
		return Config{}, fmt.Errorf("%w: Model is required", ErrInvalidConfig)
	}
	if c.MaxSteps < 0 {
		return Config{}, fmt.Errorf("%w: MaxSteps must be >= 0 (0 means %d), got %d", ErrInvalidConfig, DefaultMaxSteps, c.MaxSteps)
	}
	if c.MaxSteps == 0 {
		c.MaxSteps = DefaultMaxSteps
	}
	if c.Name == "" {
		c.Name = DefaultName
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	c.Tools = append([]tool.BaseTool(nil), c.Tools...)
	return c, nil
}

// toolInfos reads every tool's schema once, at build time, and rejects nil
// tools and duplicate names, which would make tool calls ambiguous.
func toolInfos(ctx context.Context, tools []tool.BaseTool) ([]*schema.ToolInfo, error) {
	infos := make([]*schema.ToolInfo, 0, len(tools))
	seen := make(map[string]int, len(tools))
	for i, t := range tools {
		if t == nil {
			return nil, fmt.Errorf("%w: Tools[%d] is nil", ErrInvalidConfig, i)
		}
		info, err := t.Info(ctx)
		if err != nil {
			return nil, fmt.Errorf("%w: Tools[%d].Info: %w", ErrInvalidConfig, i, err)
		}
		if info == nil || info.Name == "" {
			return nil, fmt.Errorf("%w: Tools[%d] has no name", ErrInvalidConfig, i)
		}
		if j, dup := seen[info.Name]; dup {
			return nil, fmt.Errorf("%w: Tools[%d] and Tools[%d] are both named %q", ErrInvalidConfig, j, i, info.Name)
		}
		seen[info.Name] = i
		infos = append(infos, info)
	}
	return infos, nil
}

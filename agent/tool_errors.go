package agent

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
)

// toolErrorPrefix starts the result a failed tool call gets: the model reads
// "error: " and the error's text, as it would from a tool that reported its
// own failure in its result.
const toolErrorPrefix = "error: "

// toolErrorsAsResults is the ToolsNode middleware behind the default tool
// error handling (Config.AbortOnToolError false): a tool that returns an error
// answers its call with the error's text instead of failing the run, so the
// model can correct its arguments or try another way, as in the ReAct loop.
// Errors that are not the tool's to report still end the run: the run's ctx
// ending (ctx.Err() is set) and Eino's interrupt-and-rerun signal.
func toolErrorsAsResults() compose.ToolMiddleware {
	return compose.ToolMiddleware{
		Invokable: func(next compose.InvokableToolEndpoint) compose.InvokableToolEndpoint {
			return func(ctx context.Context, in *compose.ToolInput) (*compose.ToolOutput, error) {
				out, err := next(ctx, in)
				if text, ok := toolErrorResult(ctx, err); ok {
					return &compose.ToolOutput{Result: text}, nil
				}
				return out, err
			}
		},
		Streamable: func(next compose.StreamableToolEndpoint) compose.StreamableToolEndpoint {
			return func(ctx context.Context, in *compose.ToolInput) (*compose.StreamToolOutput, error) {
				out, err := next(ctx, in)
				if text, ok := toolErrorResult(ctx, err); ok {
					return &compose.StreamToolOutput{Result: schema.StreamReaderFromArray([]string{text})}, nil
				}
				return out, err
			}
		},
		EnhancedInvokable: func(next compose.EnhancedInvokableToolEndpoint) compose.EnhancedInvokableToolEndpoint {
			return func(ctx context.Context, in *compose.ToolInput) (*compose.EnhancedInvokableToolOutput, error) {
				out, err := next(ctx, in)
				if text, ok := toolErrorResult(ctx, err); ok {
					return &compose.EnhancedInvokableToolOutput{Result: textToolResult(text)}, nil
				}
				return out, err
			}
		},
		EnhancedStreamable: func(next compose.EnhancedStreamableToolEndpoint) compose.EnhancedStreamableToolEndpoint {
			return func(ctx context.Context, in *compose.ToolInput) (*compose.EnhancedStreamableToolOutput, error) {
				out, err := next(ctx, in)
				if text, ok := toolErrorResult(ctx, err); ok {
					return &compose.EnhancedStreamableToolOutput{
						Result: schema.StreamReaderFromArray([]*schema.ToolResult{textToolResult(text)}),
					}, nil
				}
				return out, err
			}
		},
	}
}

// unknownToolResult answers a call to a tool the agent does not have, which
// Eino's ToolsNode otherwise turns into a run error, with an error result the
// model can act on.
func unknownToolResult(_ context.Context, name, _ string) (string, error) {
	return fmt.Sprintf("%sno tool named %q; call one of the tools offered", toolErrorPrefix, name), nil
}

// toolErrorResult reports whether err, returned by a tool call made with
// ctx, becomes the call's result, and the result's text.
func toolErrorResult(ctx context.Context, err error) (string, bool) {
	if err == nil || ctx.Err() != nil {
		return "", false
	}
	if _, interrupt := compose.IsInterruptRerunError(err); interrupt {
		return "", false
	}
	return toolErrorPrefix + err.Error(), true
}

// textToolResult is a multimodal tool result holding text alone.
func textToolResult(text string) *schema.ToolResult {
	return &schema.ToolResult{Parts: []schema.ToolOutputPart{{Type: schema.ToolPartTypeText, Text: text}}}
}

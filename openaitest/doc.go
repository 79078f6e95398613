// Package openaitest is a fake OpenAI-compatible chat-completions endpoint
// for tests, the way net/http/httptest serves HTTP handlers: a Server runs
// on the loopback interface, and the real eino-ext OpenAI client
// (github.com/cloudwego/eino-ext/components/model/openai) talks HTTP to it,
// so an agent, a compaction or any Eino component can be tested offline
// with the production client's wire handling.
//
// A Server answers POST .../chat/completions with what a Responder returns
// for the parsed Request. Script answers with a list of replies in order (a
// whole agent run: tool calls first, the answer last); a function of the
// Request can compute replies from what the model was sent. Replies are
// built with Text, Call and Fn, and report usage with Reply.WithUsage,
// Reply.WithCachedTokens and Reply.WithReasoningTokens, or from the
// request's size with WithPromptUsage. A Reply with Status set answers
// with that HTTP error instead.
//
// The server speaks both shapes the client uses: one "chat.completion"
// object, or, for stream=true, server-sent events: a chunk per piece of
// content or tool-call arguments (WithChunkSize), a chunk with the finish
// reason, a usage-only chunk when stream_options.include_usage asks for it
// (eino-ext always does), then "data: [DONE]".
//
// It refuses what a provider refuses, with the provider's status and error
// body (message, type, param, code), and records the request with
// Request.Rejected set:
//
//   - a tool message that answers no call of the assistant message before
//     it, or a call left unanswered (HTTP 400; CheckToolPairing);
//   - with WithContextLimit, a prompt over the model's context window (HTTP
//     400 "context_length_exceeded");
//   - with WithAPIKey, a request without that key (HTTP 401
//     "invalid_api_key");
//   - with WithReasoning, a request carrying max_tokens (HTTP 400
//     "unsupported_parameter", as OpenAI's reasoning models answer). Such a
//     server also spends hidden reasoning tokens against
//     max_completion_tokens before any text and reports them in
//     usage.completion_tokens_details.reasoning_tokens.
//
// Every request is recorded (Server.Requests) with its messages, tools,
// output caps and raw body, so a test can assert on what was really sent.
// Server.ChatModel returns the eino-ext client already pointed at the
// server, with its key and a per-request timeout (WithClientTimeout);
// Server.Config returns its configuration to adjust first.
package openaitest

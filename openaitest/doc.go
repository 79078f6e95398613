// Package openaitest is an in-process fake of an OpenAI-compatible
// chat-completions endpoint, for tests that want the real eino-ext OpenAI
// client (github.com/cloudwego/eino-ext/components/model/openai) to talk real
// HTTP without leaving the loopback interface.
//
// A Server answers POST .../chat/completions with replies produced by a
// Responder, a function of the parsed request, so a test can script a whole
// agent run (tool calls first, a final answer last) or compute replies from
// what the model was sent. It speaks both wire shapes the client uses:
//
//   - non-streaming: one "chat.completion" JSON object with usage;
//   - streaming (stream=true): server-sent events, one "chat.completion.chunk"
//     per piece of content or tool-call arguments, a final chunk carrying the
//     finish reason, then (when the request asked for
//     stream_options.include_usage, as eino-ext always does) a chunk with an
//     empty choices list and the usage, then "data: [DONE]".
//
// Every request the server saw is recorded (Requests) so tests can assert on
// the prompts an agent really sent, for example that they were compacted.
//
// Like real providers, the server rejects with HTTP 400 a conversation that
// contains an orphan: a tool message whose tool_call_id was not requested by
// the assistant message it follows, or an assistant tool call whose results do
// not all arrive before the next non-tool message (or the end of the request).
// Compaction bugs show up as exactly these errors in production, so the fake
// makes them fail tests the same way. Rejected requests are recorded too, with
// Request.Rejected set.
package openaitest

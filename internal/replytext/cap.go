package replytext

import (
	"strings"

	"github.com/cloudwego/eino/schema"
)

// RefusesMaxTokens reports whether err is a provider's refusal of the
// max_tokens parameter, as OpenAI's reasoning models answer it (HTTP 400
// unsupported_parameter: "Unsupported parameter: 'max_tokens' is not
// supported with this model. Use 'max_completion_tokens' instead."). Clients
// pass the provider's text on in their errors, and no error type of Eino's
// names the parameter, so the text is what is read. The compactor learns to
// send its cap another way; summarizer/failover hands the error back to it
// instead of falling over, since every call with max_tokens fails the same.
func RefusesMaxTokens(err error) bool {
	if err == nil {
		return false
	}
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "max_tokens") &&
		(strings.Contains(msg, "max_completion_tokens") || strings.Contains(msg, "unsupported") || strings.Contains(msg, "not supported"))
}

// CutBeforeText reports whether reply was cut at its output cap (finish
// reason "length") before it had any usable text or tool call, as a
// reasoning model's reply is when its hidden reasoning used the cap up.
// Only a larger cap helps, which the caller sets.
func CutBeforeText(reply *schema.Message) bool {
	return reply != nil && reply.ResponseMeta != nil && reply.ResponseMeta.FinishReason == "length" &&
		len(reply.ToolCalls) == 0 && Usable(reply) == ""
}

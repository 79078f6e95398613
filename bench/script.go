package bench

import (
	"errors"
	"fmt"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// Script is a recorded run for Simulate to replay (SimConfig.Script) in
// place of a generated Trajectory: every strategy then gets the model
// replies of that run, and the tool results that followed them, whatever
// it did to the conversation.
type Script struct {
	// System is the conversation's first message, its system prompt.
	System *schema.Message
	// Steps are the run's model calls in order.
	Steps []Step
	// Tools are the schemas sent with every call; nil means Tools().
	Tools []*schema.ToolInfo
}

// ScriptOf cuts a conversation as it grew without compaction (system
// prompt first) into a Script: each assistant reply ends a step, and what
// came after the previous reply arrives before it. Messages after the last
// reply are left out; the replies lose their usage (Step.Reply).
func ScriptOf(conversation []*schema.Message, tools []*schema.ToolInfo) (*Script, error) {
	if len(conversation) == 0 || conversation[0].Role != schema.System {
		return nil, errors.New("bench: ScriptOf needs a conversation that begins with its system prompt")
	}
	s := &Script{System: conversation[0], Tools: tools}
	var before []*schema.Message
	for _, m := range conversation[1:] {
		if m.Role != schema.Assistant {
			before = append(before, m)
			continue
		}
		reply := *m
		reply.ResponseMeta = nil
		s.Steps = append(s.Steps, Step{Before: before, Reply: &reply})
		before = nil
	}
	if len(s.Steps) == 0 {
		return nil, fmt.Errorf("bench: ScriptOf: no assistant reply among %d messages", len(conversation))
	}
	return s, nil
}

// ReplyTokens is what a simulation bills as the output of a model call
// that answered reply: its size by the default counter.
func ReplyTokens(reply *schema.Message) int {
	c := compaction.DefaultCounter()
	return c.Tokens(c.MessageCost(reply), 1)
}

package compaction

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// The identities of the built-in compactors (Identifier): their type, a
// version of what their output means, and every setting that shapes it.
// Long texts (an instruction, a placeholder) enter as their SHA-256, so an
// identity stays short. The summarizer's model enters as its component
// type; which model of that provider writes the summaries is not visible
// here, so hooks whose summarizers differ only in the model name must say
// so in HookConfig.StoreScope. A function setting
// (MaxCompletionTokensOption) enters as set or not, extractors as their
// types. TestSummarizationIdentityCoversEveryField
// and TestModelFreeIdentitiesCoverEveryField fail for a config field that
// is neither here nor exempt with a reason (a logger, an observer).

func textID(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:8])
}

// CompactionIdentity implements Identifier.
func (c *SummarizationCompactor) CompactionIdentity() string {
	return fmt.Sprintf("summarization/1 model=%s min_keep=%d approx=%d instruction=%s raise=%v max_input=%d max_text=%d aligned=%v max_output=%d completion_option=%v %s",
		c.model, c.minKeep, c.approx, textID(c.instruction), c.raise, c.maxInput, c.maxText, c.aligned, c.maxOutput, c.outCap.completion != nil,
		c.ledger.Identity())
}

// CompactionIdentity implements Identifier.
func (c *SlidingWindowCompactor) CompactionIdentity() string {
	return fmt.Sprintf("sliding_window/1 min_keep=%d note=%v:%s", c.minKeep, c.withNote, textID(c.note))
}

// CompactionIdentity implements Identifier.
func (c *ToolResultPruningCompactor) CompactionIdentity() string {
	return fmt.Sprintf("tool_result_pruning/1 min_keep=%d min_tokens=%d placeholder=%s skip=%s",
		c.minKeep, c.minTokens, textID(c.placeholder), textID(strings.Join(c.skipKeys, "\x00")))
}

// CompactionIdentity implements Identifier: the identities of its stages in
// order, or "" when a stage has none (a hook then refuses the Store).
func (p *Pipeline) CompactionIdentity() string {
	parts := make([]string, len(p.stages))
	for i, s := range p.stages {
		id, ok := s.(Identifier)
		if !ok || id.CompactionIdentity() == "" {
			return ""
		}
		parts[i] = "[" + id.CompactionIdentity() + "]"
	}
	return "pipeline/1 " + strings.Join(parts, " ")
}

var (
	_ Identifier = (*SummarizationCompactor)(nil)
	_ Identifier = (*SlidingWindowCompactor)(nil)
	_ Identifier = (*ToolResultPruningCompactor)(nil)
	_ Identifier = (*Pipeline)(nil)
)

// Package marker holds the schema.Message.Extra key that marks a message
// written by a compactor, declared once for the packages that cannot import
// each other: hooks/compaction, which exports it as compaction.MetaKey, and
// the Eino adapters of integration/eino, which the compaction package's own
// tests import through the agent.
package marker

// Key is the Extra key of a compactor's marker (compaction.MetaKey).
const Key = "context_compaction"

// Has reports whether extra carries Key at all, whatever its value.
func Has(extra map[string]any) bool {
	_, ok := extra[Key]
	return ok
}

package compaction

import "encoding/gob"

// Eino checkpoints (ADK interrupt and resume) encode messages with gob, and
// gob encodes a value held in an interface only if its concrete type is
// registered. The markers this package writes into schema.Message.Extra are
// map[string]any, and the ledger's remembered identifiers inside them are
// []any; registering both here means a program that imports this package can
// checkpoint a compacted conversation without registering anything itself.
func init() {
	registerGob(map[string]any{})
	registerGob([]any{})
}

// registerGob registers v with gob under its default name. gob panics when
// the type is already registered under another name; that registration
// serves encoding just as well, so the panic is not the program's concern.
func registerGob(v any) {
	defer func() { _ = recover() }()
	gob.Register(v)
}

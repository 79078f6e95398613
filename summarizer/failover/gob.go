package failover

import "github.com/cloudwego/eino/schema"

// A reply's attempts sit in Extra behind an interface, and Eino checkpoints
// (gob, or its own serializer) encode such a value only if its type is
// registered. Registering here means a program that uses Model as a chat
// model can checkpoint without registering anything itself.
func init() {
	schema.RegisterName[Attempt]("einocompact_failover_attempt")
	schema.RegisterName[[]Attempt]("einocompact_failover_attempts")
}

// Package hooks defines the points in an agent run where user code may look at
// and rewrite the conversation, and a Registry that runs the hooks registered at
// each point.
//
// An agent calls Registry.Run at six points (see Point). Every hook at a point
// receives the same *State and may change it in place; a hook that wants to
// rewrite the conversation replaces State.Messages with a new slice rather than
// editing the messages it points to, because the caller may still hold them.
//
// Hooks may optionally implement PointLimiter (to refuse registration at points
// where they make no sense), WarmUpper and Closer (to take part in the
// application's lifecycle). The compaction hook in package
// github.com/einocompact/einocompact/hooks/compaction implements all three.
package hooks

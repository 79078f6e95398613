// Package identifiers finds, without any model, the exact strings an agent
// cannot afford to lose when its conversation is summarized: file paths, URLs,
// UUIDs, hex hashes, tool-call ids, error strings, attachment placeholders
// and the values of tool arguments such as "path" or "query".
//
// Extraction is deterministic and linear in the text: the default extractors
// are hand-written scanners or line-anchored expressions, so a transcript of
// megabytes is scanned in milliseconds. Every Match is a verbatim substring of
// the text it came from, so "did the summary keep it" is a substring test.
//
// The extractors are plain values: pick a subset of DefaultExtractors, add an
// Arguments extractor with other key names, or wrap a regular expression with
// Regexp. Extract merges what they find in order of first appearance.
package identifiers

// Package spotlight keeps text that did not come from the user or the
// summarizer model from passing, inside a summary, as structure or as an
// instruction. It follows Spotlighting (Hines et al., 2024, "Defending
// Against Indirect Prompt Injection Attacks With Spotlighting"):
//
//   - delimiting: a free text copied from a tool result is shown between
//     « and »;
//   - datamarking: inside the delimiters every space is replaced by ˆ
//     (U+02C6), so the text no longer reads as sentences a model would
//     follow, and the marking is visible on every word;
//
// and the summary that carries such text says what the marking means (Note).
// The third technique of the paper, encoding (base64 and the like), is left
// out: it costs several times the tokens and the model must decode it to use
// the text at all. Inside the delimiters the delimiters themselves, ˆ, the
// escape ¤ and every blank but ' ' (white space, and the code points that
// look blank or show nothing, see IsBlank) are written "¤HEX;", so data cannot
// close its own block or break a line, and Unmark gets every byte back.
// A text without blanks (a path, a hash, a UUID, a URL) is left as it
// is, byte for byte: it cannot read as an instruction and must stay exact.
//
// It also matches the wrapper tags compaction writes in every spelling a
// model could read as one (any case, any spacing), so copied text cannot
// close its block early.
package spotlight

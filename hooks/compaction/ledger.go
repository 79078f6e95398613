package compaction

import (
	"github.com/einocompact/einocompact/hooks/compaction/identifiers"
	"github.com/einocompact/einocompact/hooks/compaction/internal/ledger"
)

// LedgerConfig configures the identifier ledger of a SummarizationCompactor.
//
// Summaries lose exact identifiers: a path, an id or an error string written
// from memory is not the one the agent needs. Before a round the ledger
// extracts identifiers from the messages being replaced, without any model;
// after the summary comes back it appends those the summary lost, under a
// "## Identifiers (verbatim)" heading, within MaxTokens: an identifier
// without white space byte for byte, free text such as an error line marked
// as data («Error:ˆdiskˆfull», and the summary opens with a line saying what
// the marks mean), since the block copies tool output into a user message.
// The full list is kept in the summary's marker under "identifiers", so a
// later round that folds this summary into a new one carries them forward
// even if the cap cut them from the text.
type LedgerConfig struct {
	// Disabled turns the ledger off. Default false: the ledger is on.
	Disabled bool
	// Extractors find identifiers. Default identifiers.DefaultExtractors():
	// paths, URLs, UUIDs, hex hashes of 7+ characters, quoted error strings
	// and error lines, and the values of tool arguments named like path,
	// file, url, id or query. Tool-call ids are left out whatever the
	// extractors: the messages are read without them, since once their calls
	// are summarized they name nothing.
	Extractors []identifiers.Extractor
	// MaxTokens caps the size of the appended block, as measured by the
	// compaction's counter. Must be >= 0. Default 0: a quarter of the
	// compaction's target, at least 256 tokens and at most 8 per remembered
	// identifier (1,600 with the default MaxRemembered), so the block grows
	// with the room the conversation is given (docs/fidelity.md); five
	// quarters of that in a deep compaction (Report.Deep), which replaces
	// more.
	MaxTokens int
	// MaxRemembered caps how many identifiers a summary's marker records.
	// Default 200.
	MaxRemembered int
}

// IdentifierStats reports what the ledger found and did in one round.
type IdentifierStats struct {
	Found    int // identifiers in the replaced messages (and folded summaries' ledgers)
	Survived int // of those, found in the summary as written, verbatim or marked as data
	Appended int // lost ones appended verbatim by the ledger
	Dropped  int // lost ones left out to respect MaxTokens
}

// SurvivalRate is Survived/Found before repair; 1 when nothing was found.
func (s IdentifierStats) SurvivalRate() float64 { return ledger.Stats(s).SurvivalRate() }

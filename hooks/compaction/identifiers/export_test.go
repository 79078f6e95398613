package identifiers

// ReferenceExtractors is DefaultExtractors with the path and error
// extractors as they were written before their byte-level speed-ups.
func ReferenceExtractors() []Extractor {
	return []Extractor{
		Attachments(), URLs(), ExtractorFunc(refFindPaths), UUIDs(), Hashes(),
		ExtractorFunc(refFindQuotedErrors), ExtractorFunc(refFindErrorLines),
		Arguments(DefaultArgumentKeys()...),
	}
}

package identifiers

// ReferenceExtractors is DefaultExtractors with the path, hex and error
// extractors as they were written before their byte-level speed-ups (the hex
// ones run apart, not as Extract's shared scan).
func ReferenceExtractors() []Extractor {
	return []Extractor{
		Attachments(), URLs(), ExtractorFunc(refFindPaths),
		ExtractorFunc(func(text string) []Match { return refScanHex(text, true, false) }),
		ExtractorFunc(func(text string) []Match { return refScanHex(text, false, true) }),
		ExtractorFunc(refFindQuotedErrors), ExtractorFunc(refFindErrorLines),
		Arguments(DefaultArgumentKeys()...),
	}
}

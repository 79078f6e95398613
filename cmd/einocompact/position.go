package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// posError is an error at a place in the input file, "LINE:COL: what".
type posError struct {
	pos string
	err error
}

func (e *posError) Error() string { return e.pos + ": " + e.err.Error() }
func (e *posError) Unwrap() error { return e.err }

// jsonError rewrites a decoding error of data so that it points at the
// problem as an editor would. Errors without a position (rare) come back
// unchanged.
func jsonError(data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return &posError{position(data, syn.Offset), err}
	case errors.As(err, &typ):
		what := fmt.Errorf("cannot use a JSON %s here", typ.Value)
		if typ.Field != "" {
			what = fmt.Errorf("cannot use a JSON %s as %s", typ.Value, typ.Field)
		}
		return &posError{position(data, typ.Offset), what}
	}
	return err
}

// position turns the byte offset the decoder reports (the number of bytes
// read when it stopped, so the culprit is the byte before) into a 1-based
// "line:column", columns counted in characters.
func position(data []byte, offset int64) string {
	at := int(min(max(offset-1, 0), int64(len(data))))
	line, lineStart := 1, 0
	for i := 0; i < at; i++ {
		if data[i] == '\n' {
			line, lineStart = line+1, i+1
		}
	}
	return fmt.Sprintf("%d:%d", line, utf8.RuneCount(data[lineStart:at])+1)
}

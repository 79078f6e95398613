package digest

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// Generic turns any JSON-marshalable value into maps, slices and json.Number.
func Generic(v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	return out, nil
}

// StableJSON encodes a generic JSON value with sorted keys, ", " and ": "
// separators and no HTML escaping, so the text (and its length) depends only
// on the value.
func StableJSON(v any) string {
	var b strings.Builder
	writeStable(&b, v)
	return b.String()
}

func writeStable(b *strings.Builder, v any) {
	switch x := v.(type) {
	case map[string]any:
		b.WriteString("{")
		for i, k := range slices.Sorted(maps.Keys(x)) {
			if i > 0 {
				b.WriteString(", ")
			}
			writeJSONString(b, k)
			b.WriteString(": ")
			writeStable(b, x[k])
		}
		b.WriteString("}")
	case []any:
		b.WriteString("[")
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeStable(b, e)
		}
		b.WriteString("]")
	case string:
		writeJSONString(b, x)
	case json.Number:
		b.WriteString(x.String())
	case nil:
		b.WriteString("null")
	default:
		raw, err := json.Marshal(x)
		if err != nil {
			b.WriteString("null")
			return
		}
		b.Write(raw)
	}
}

func writeJSONString(b *strings.Builder, s string) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	b.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

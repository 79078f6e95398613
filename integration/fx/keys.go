package compactfx

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// keyIndex walks a YAML tree alongside the Go type it will be decoded into,
// so errors can speak in dotted key paths ("compaction.compact_at") rather
// than Go type names: the yaml decoder only reports lines and types.
type keyIndex struct {
	lines   map[int]string // line of a value -> the key path it belongs to
	unknown []error
}

func newKeyIndex() *keyIndex { return &keyIndex{lines: make(map[int]string)} }

var unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()

func typeOf(v any) reflect.Type {
	t := reflect.TypeOf(v)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func (k *keyIndex) walk(n *yaml.Node, t reflect.Type, path string) {
	if n == nil || t == nil {
		return
	}
	if n.Kind == yaml.DocumentNode {
		for _, c := range n.Content {
			k.walk(c, t, path)
		}
		return
	}
	// An alias is not followed: its anchor's node is walked where it is
	// written, and following aliases would expand an alias bomb (aliases of
	// aliases, a few KB of YAML) into billions of nodes here, before the
	// decoder, which bounds aliasing, gets to reject it.
	if n.Kind == yaml.AliasNode {
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if path != "" {
		k.lines[n.Line] = path
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		return
	}
	switch {
	case t.Kind() == reflect.Struct && n.Kind == yaml.MappingNode:
		fields := yamlFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, val := n.Content[i], n.Content[i+1]
			child := join(path, key.Value)
			ft, ok := fields[key.Value]
			if !ok {
				k.unknown = append(k.unknown, unknownKey(child, key.Line, fields))
				continue
			}
			k.lines[key.Line] = child
			k.walk(val, ft, child)
		}
	case t.Kind() == reflect.Map && n.Kind == yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			child := join(path, n.Content[i].Value)
			k.lines[n.Content[i].Line] = child
			k.walk(n.Content[i+1], t.Elem(), child)
		}
	case (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && n.Kind == yaml.SequenceNode:
		for i, c := range n.Content {
			k.walk(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i))
		}
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// yamlFields maps the YAML keys of struct t to their field types, following
// ",inline" embedding the way the decoder does.
func yamlFields(t reflect.Type) map[string]reflect.Type {
	out := make(map[string]reflect.Type)
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("yaml")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if slices.Contains(strings.Split(opts, ","), "inline") {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			for k, v := range yamlFields(ft) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = f.Type
	}
	return out
}

func unknownKey(path string, line int, fields map[string]reflect.Type) error {
	_, key := splitLast(path)
	known := make([]string, 0, len(fields))
	for k := range fields {
		known = append(known, k)
	}
	slices.Sort(known)
	if best := closest(key, known); best != "" {
		prefix, _ := splitLast(path)
		return fmt.Errorf("config: unknown key %s (line %d); did you mean %s?", path, line, join(prefix, best))
	}
	return fmt.Errorf("config: unknown key %s (line %d); known keys here: %s", path, line, strings.Join(known, ", "))
}

func splitLast(path string) (prefix, last string) {
	i := strings.LastIndexByte(path, '.')
	if i < 0 {
		return "", path
	}
	return path[:i], path[i+1:]
}

// closest returns the known key nearest to key by edit distance, when it is
// near enough to be a plausible typo.
func closest(key string, known []string) string {
	best, bestD := "", len(key)/2+1
	for _, k := range known {
		if d := editDistance(key, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

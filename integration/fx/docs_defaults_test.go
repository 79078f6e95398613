package compactfx

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// docsDefaultCells maps each key in the tables of docs/configuration.md to
// its default cell, backticks removed.
func docsDefaultCells(t *testing.T) map[string]string {
	t.Helper()
	doc := configurationDoc(t)
	cells := map[string]string{}
	for line := range strings.SplitSeq(doc, "\n") {
		cols := strings.Split(line, "|")
		if len(cols) < 4 || !strings.HasPrefix(strings.TrimSpace(cols[1]), "`") {
			continue
		}
		key := strings.Trim(strings.TrimSpace(cols[1]), "`")
		cells[key] = strings.Trim(strings.TrimSpace(cols[2]), "`")
	}
	return cells
}

// docsDefaultValue walks key ("a.b.c") down v along the YAML field names.
func docsDefaultValue(t *testing.T, v reflect.Value, key string) reflect.Value {
	t.Helper()
	for part := range strings.SplitSeq(key, ".") {
		found := false
		for i := range v.NumField() {
			name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("yaml"), ",")
			if name == part {
				v, found = v.Field(i), true
				break
			}
		}
		if !found {
			t.Fatalf("no field for %q in %s", part, key)
		}
	}
	return v
}

// docsCellMatches reports whether the documented default cell denotes v,
// parsing the cell by v's type rather than formatting v, so that "2m" and
// "120s" or "4" and "4.0" are all accepted.
func docsCellMatches(cell string, v reflect.Value) (bool, error) {
	if d, ok := v.Interface().(Duration); ok {
		got, err := time.ParseDuration(cell)
		return err == nil && got == d.Std(), err
	}
	switch v.Kind() {
	case reflect.Pointer:
		// An optional key: nil is documented as "unset" (the library
		// decides), a value as that value.
		if v.IsNil() {
			return cell == "unset", nil
		}
		return docsCellMatches(cell, v.Elem())
	case reflect.String:
		if cell == `""` {
			cell = ""
		}
		return cell == v.String(), nil
	case reflect.Int:
		n, err := strconv.Atoi(cell)
		return err == nil && int64(n) == v.Int(), err
	case reflect.Float64:
		f, err := strconv.ParseFloat(cell, 64)
		return err == nil && f == v.Float(), err
	case reflect.Bool:
		b, err := strconv.ParseBool(cell)
		return err == nil && b == v.Bool(), err
	case reflect.Slice:
		want := make([]string, v.Len())
		for i := range want {
			want[i] = fmt.Sprint(v.Index(i).Interface())
		}
		return cell == "["+strings.Join(want, ", ")+"]", nil
	}
	return false, fmt.Errorf("no rule for kind %s", v.Kind())
}

// Every key's documented default must be DefaultConfig's value: the table is
// what users read, DefaultConfig is what they get.
func TestConfigurationDocDefaultsMatchDefaultConfig(t *testing.T) {
	t.Parallel()
	cells := docsDefaultCells(t)
	def := reflect.ValueOf(DefaultConfig()).Elem()
	checked := 0
	for _, key := range configLeafKeys() {
		cell, ok := cells[key]
		if !ok {
			t.Errorf("docs/configuration.md has no table row for `%s`", key)
			continue
		}
		v := docsDefaultValue(t, def, key)
		if ok, err := docsCellMatches(cell, v); !ok {
			t.Errorf("docs/configuration.md: `%s` default %q, DefaultConfig has %v (%v)", key, cell, v.Interface(), err)
		}
		checked++
	}
	if checked < 30 {
		t.Fatalf("checked only %d keys; the walk is broken", checked)
	}
}

func TestDocsCellMatches(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cell string
		v    any
		want bool
	}{
		{`""`, "", true},
		{"x", "", false},
		{"2m", Duration(2 * time.Minute), true},
		{"90s", Duration(2 * time.Minute), false},
		{"4.0", 4.0, true},
		{"0.5", 0.4, false},
		{"20", 20, true},
		{"true", false, false},
		{"[prune, summarize]", []string{"prune", "summarize"}, true},
		{"[summarize, prune]", []string{"prune", "summarize"}, false},
		{"unset", (*int)(nil), true},
		{"0", (*int)(nil), false},
		{"300", new(300), true},
		{"unset", new(300), false},
	}
	for _, tt := range tests {
		if got, _ := docsCellMatches(tt.cell, reflect.ValueOf(tt.v)); got != tt.want {
			t.Errorf("docsCellMatches(%q, %v) = %v, want %v", tt.cell, tt.v, got, tt.want)
		}
	}
}

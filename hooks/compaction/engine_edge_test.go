package compaction

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/einocompact/einocompact/hooks/compaction/internal/engine"
)

// TestReportCopiesEveryField: every field of the engine's report reaches
// the public Report with its value, and the two structs name the same
// fields, so a field added to one and not the other, or not copied by
// reportOf, fails here.
func TestReportCopiesEveryField(t *testing.T) {
	t.Parallel()
	var in engine.Report
	v := reflect.ValueOf(&in).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(i + 1))
		case reflect.Float64:
			f.SetFloat(float64(i) + 0.5)
		case reflect.Bool:
			f.SetBool(true)
		case reflect.String:
			f.SetString(v.Type().Field(i).Name)
		case reflect.Interface:
			f.Set(reflect.ValueOf(errors.New("cause")))
		case reflect.Slice:
			f.Set(reflect.ValueOf([]engine.Round{{Data: Round{Tier: "t", Latency: time.Second}}}))
		default:
			t.Fatalf("field %s: kind %s not covered by this test", v.Type().Field(i).Name, f.Kind())
		}
	}
	out := reportOf(&in)
	o := reflect.ValueOf(out)
	if got, want := o.NumField(), v.NumField(); got != want {
		t.Fatalf("Report has %d fields, the engine's %d", got, want)
	}
	for i := range v.NumField() {
		name := v.Type().Field(i).Name
		switch name {
		case "Keep":
			if out.VerbatimFloor() != in.Keep {
				t.Errorf("VerbatimFloor %d, want Keep %d", out.VerbatimFloor(), in.Keep)
			}
		case "Rounds":
			if len(out.Rounds) != 1 || out.Rounds[0].Tier != "t" || out.Rounds[0].Latency != time.Second {
				t.Errorf("Rounds %+v, want the Round in Data", out.Rounds)
			}
		default:
			got := o.FieldByName(name)
			if !got.IsValid() {
				t.Errorf("Report has no field %s", name)
				continue
			}
			if !reflect.DeepEqual(got.Interface(), v.Field(i).Interface()) {
				t.Errorf("%s = %v, want %v", name, got.Interface(), v.Field(i).Interface())
			}
		}
	}
}

// TestFallbackMarginMatches: the public FallbackMargin, written out for
// godoc, is the margin the engine applies.
func TestFallbackMarginMatches(t *testing.T) {
	t.Parallel()
	if FallbackMargin != engine.FallbackMargin {
		t.Fatalf("FallbackMargin %v, the engine's %v", FallbackMargin, engine.FallbackMargin)
	}
}

package spotlight

import (
	"slices"
	"testing"
)

// TestKeptFindsVerbatimAndMarkedForms: a value is kept when the text holds
// it verbatim or in its datamarked form, inside a whole marked text or a
// longer one; anything else is lost.
func TestKeptFindsVerbatimAndMarkedForms(t *testing.T) {
	t.Parallel()
	const fail = "FAIL: TestConvert (0.00s)"
	values := []string{fail, "/srv/app/main.go", "3f2a9c1d7e5b"}
	tests := []struct {
		name string
		text string
		want []bool
	}{
		{"verbatim", "saw " + fail + " in /srv/app/main.go", []bool{true, true, false}},
		{"marked whole", "- «FAIL:ˆTestConvertˆ(0.00s)»\n- 3f2a9c1d7e5b", []bool{true, false, true}},
		{"marked inside a longer quote", "-> «---ˆFAIL:ˆTestConvertˆ(0.00s)ˆin¤a;»", []bool{true, false, false}},
		{"words without the marks", "FAIL:ˆTestConvert (0.00s)", []bool{false, false, false}},
		{"nothing", "all good", []bool{false, false, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Kept(tt.text, values); !slices.Equal(got, tt.want) {
				t.Errorf("Kept(%q) = %v, want %v", tt.text, got, tt.want)
			}
		})
	}
}

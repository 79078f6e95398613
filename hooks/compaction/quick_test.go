package compaction

import "testing"

func TestFreshRendersAsReference(t *testing.T) {
	t.Parallel()
	want := []int{14, 12, 35, 170, 35, 182}
	for i, m := range fresh() {
		if got := count(fc1, m); got != want[i] {
			t.Errorf("message %d: %d chars, want %d (%q)", i, got, want[i], RenderMessage(m, RenderOptions{}))
		}
	}
	if got := count(fc1, fresh()...); got != 453 {
		t.Errorf("FRESH under FC1 = %d, want 453", got)
	}
	if got := count(fc4, fresh()...); got != 113 {
		t.Errorf("FRESH under FC4 = %d, want 113", got)
	}
}

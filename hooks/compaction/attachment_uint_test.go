package compaction

import (
	"math"
	"testing"
)

// TestDescribeAttachmentLargeUnsigned: unsigned metadata above MaxInt64 is
// shown as the number it is, not wrapped round to a negative one.
func TestDescribeAttachmentLargeUnsigned(t *testing.T) {
	t.Parallel()
	tests := []struct {
		v    any
		want string
	}{
		{uint64(math.MaxUint64), "<image: image/png, n=18446744073709551615>"},
		{uint(1) << 63, "<image: image/png, n=9223372036854775808>"},
		{uint32(math.MaxUint32), "<image: image/png, n=4294967295>"},
		{int64(math.MinInt64), "<image: image/png, n=-9223372036854775808>"},
	}
	for _, tt := range tests {
		got := DescribeAttachment(Attachment{Kind: AttachmentImage, MIMEType: "image/png", Extra: map[string]any{"n": tt.v}})
		if got != tt.want {
			t.Errorf("%T %v: got %q, want %q", tt.v, tt.v, got, tt.want)
		}
	}
}

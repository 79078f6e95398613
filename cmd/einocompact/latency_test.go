package main

import (
	"testing"
	"time"
)

func TestLatency(t *testing.T) {
	t.Parallel()
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{42400 * time.Nanosecond, "42µs"},
		{1300 * time.Microsecond, "1.3ms"},
		{12340 * time.Microsecond, "12.3ms"},
		{1234 * time.Millisecond, "1.23s"},
		{83 * time.Second, "1m23s"},
	}
	for _, tt := range tests {
		if got := latency(tt.d); got != tt.want {
			t.Errorf("latency(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

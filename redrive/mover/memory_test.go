package mover

import "testing"

func TestMemoryLimit(t *testing.T) {
	for _, tt := range []struct {
		backlog int
		want    int64
	}{{0, 48 << 20}, {1_000_000, 48<<20 + 48_000_000}, {10_000_000, 48<<20 + 480_000_000}} {
		if got := MemoryLimit(tt.backlog); got != tt.want {
			t.Errorf("MemoryLimit(%d) = %d, want %d", tt.backlog, got, tt.want)
		}
	}
}

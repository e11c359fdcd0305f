package mover

import (
	"strconv"
	"testing"
)

// The run's table keeps its two flags apart, counts each once, and grows
// without losing an id.
func TestRunSetFlags(t *testing.T) {
	r := newRunSet(4)
	seen, noted := seenSet{r}, notedSet{r}
	const n = 50000
	for i := range n {
		id := "m-" + strconv.Itoa(i)
		if !seen.add(id) || seen.add(id) {
			t.Fatalf("seen.add(%s) twice did not say new, then old", id)
		}
		if i%3 == 0 && !noted.add(id) {
			t.Fatalf("noted.add(%s) not new", id)
		}
	}
	if seen.Len() != n {
		t.Fatalf("seen.Len() = %d, want %d", seen.Len(), n)
	}
	for i := range n {
		id := "m-" + strconv.Itoa(i)
		if !seen.has(id) || noted.has(id) != (i%3 == 0) {
			t.Fatalf("%s: seen %v noted %v after growing to %d slots", id, seen.has(id), noted.has(id), len(r.slots))
		}
	}
	if seen.has("m-x") || noted.has("m-x") {
		t.Fatal("an id never added is in the table")
	}
	if len(r.slots)*8 > 22*n {
		t.Errorf("%d slots for %d ids: more than 22 bytes an id (three quarters full at most, a power of two)", len(r.slots), n)
	}
}

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

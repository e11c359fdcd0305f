package redrive

import (
	"math"
	"runtime/debug"
	"testing"

	"github.com/mfdlq/mfdlq/dedupe"
	"github.com/mfdlq/mfdlq/sqsjson"
	"github.com/mfdlq/mfdlq/transform"
)

// A --transform --dedupe move raises the soft limit the caller set by
// what it keeps a message, for the move's length; without either, with
// GOMEMLIMIT or GOGC given, or with no limit set, nothing changes.
func TestPathMemory(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("GOGC", "")
	prog, err := transform.Compile(".version = 1", "--transform")
	if err != nil {
		t.Fatal(err)
	}
	key, err := dedupe.Compile(".order_id", func(m *sqsjson.Message) ([]byte, bool) { return []byte(m.Body), true })
	if err != nil {
		t.Fatal(err)
	}
	both := &Plan{Transform: prog, Dedupe: dedupe.NewClaims(key), Backlog: 1000}
	plain := &Plan{Backlog: 1000}
	orig := debug.SetMemoryLimit(64 << 20)
	defer debug.SetMemoryLimit(orig)

	restore := pathMemory(both)
	if got, want := debug.SetMemoryLimit(-1), int64(64<<20+(transformBytesPerMessage+dedupeBytesPerMessage)*1000); got != want {
		t.Fatalf("during a --transform --dedupe move: limit %d, want %d", got, want)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != 64<<20 {
		t.Fatalf("after it: %d, want the caller's %d", got, 64<<20)
	}
	pathMemory(plain)()
	if got := debug.SetMemoryLimit(-1); got != 64<<20 {
		t.Fatalf("a plain move changed the limit: %d", got)
	}
	t.Setenv("GOMEMLIMIT", "1GiB")
	pathMemory(both)
	if got := debug.SetMemoryLimit(-1); got != 64<<20 {
		t.Fatalf("with GOMEMLIMIT given: %d", got)
	}
	t.Setenv("GOMEMLIMIT", "")
	debug.SetMemoryLimit(math.MaxInt64)
	pathMemory(both)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Fatalf("with no limit set: %d", got)
	}
}

package dedupe

import (
	"runtime"
	"strconv"
	"testing"

	"github.com/mfdlq/mfdlq/sqsjson"
)

func heap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkAtAMillion measures --dedupe's memory at 1,000,000 messages:
// a tally (inspect, classify, --dry-run) of a million distinct keys, and a
// move's Claims when half of a million messages are duplicates (one digest
// each), in bytes a key; the journal's keys moved are
// redrive/journal's BenchmarkKeysAtAMillion. Keys are digested as given
// (the expression's cost is BenchmarkKeyOf's):
// `go test -run XXX -bench AtAMillion -benchtime 1x ./dedupe/`.
func BenchmarkAtAMillion(b *testing.B) {
	const n = 1_000_000
	k, err := Compile(`.`, detect)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("tally", func(b *testing.B) {
		h0 := heap()
		t := NewTally(k)
		for i := range n {
			d := Digest("cobro:" + strconv.Itoa(i))
			t.messages++
			t.seen.add(d)
		}
		h1 := heap()
		runtime.KeepAlive(t)
		if s := t.Summary(10); s.Keys != n {
			b.Fatalf("%d keys, want %d", s.Keys, n)
		}
		b.ReportMetric(float64(h1-h0)/n, "bytes/key")
	})
	b.Run("claims", func(b *testing.B) {
		h0 := heap()
		c := NewClaims(k)
		taken := func(d uint64) bool { return d%2 == 0 } // every other key moved already
		left := 0
		for i := range n {
			id := "m-" + strconv.Itoa(i)
			j := Judged{Key: "cobro:" + strconv.Itoa(i), Digest: uint64(i)*2 + uint64(i%2) + 2}
			if c.Claim("q", id, j, taken) {
				c.Release("q", id, j)
			} else if c.Left(id, j) {
				left++
			}
		}
		h1 := heap()
		runtime.KeepAlive(c)
		if d, _, _, _ := c.Counts(); d != left || left != n/2 {
			b.Fatalf("%d duplicates counted, %d left; want %d", d, left, n/2)
		}
		b.ReportMetric(float64(h1-h0)/float64(left), "bytes/duplicate")
	})
}

// BenchmarkKeyOf is the cost of one key: the runbook's expression on an
// SNS-wrapped order.
func BenchmarkKeyOf(b *testing.B) {
	k, err := Compile(`"cobro:" + .order_id`, detect)
	if err != nil {
		b.Fatal(err)
	}
	m := &sqsjson.Message{MessageId: "m", Body: sns(`{"order_id":"o-123456","total":"19.90","items":[{"sku":"a","n":2}]}`)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := k.Of(m); err != nil {
			b.Fatal(err)
		}
	}
}

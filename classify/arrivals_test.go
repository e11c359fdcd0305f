package classify

import "testing"

// TestArrivalsMerge: a group inferred into another keeps every arrival,
// and the merged histogram spans both, however different their widths.
func TestArrivalsMerge(t *testing.T) {
	var a, b arrivals
	const hour = int64(3600_000)
	for i := int64(0); i < 10; i++ {
		a.add(1_700_000_000_000 + i*1000) // ten seconds: one-second buckets
	}
	for i := int64(0); i < 30; i++ {
		b.add(1_700_000_000_000 + i*2*hour) // sixty hours: wide buckets
	}
	a.merge(&b)
	sum := 0
	for _, c := range a.counts {
		sum += int(c)
	}
	if a.n != 40 || sum != 40 {
		t.Errorf("n %d, buckets sum %d: want 40 and 40", a.n, sum)
	}
	if a.first != 1_700_000_000_000 || a.last != 1_700_000_000_000+58*hour {
		t.Errorf("first %d last %d: want the span of both", a.first, a.last)
	}
	var empty arrivals
	empty.merge(&b)
	if empty.n != 30 || empty.first != b.first {
		t.Errorf("merge into empty: n %d first %d", empty.n, empty.first)
	}
}

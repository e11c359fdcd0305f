package receipts

import (
	"testing"
	"time"
)

var t0 = time.Date(2026, 12, 7, 3, 0, 0, 0, time.UTC)

// A Fake fires a wait only when advanced past it, earliest first; with
// Auto every wait moves the clock by itself.
func TestFakeClockFiresWaitsWhenAdvanced(t *testing.T) {
	c := NewFake(t0)
	late, early := c.After(2*time.Second), c.After(time.Second)
	c.Advance(999 * time.Millisecond)
	select {
	case <-early:
		t.Fatal("a 1 s wait fired after 999 ms")
	default:
	}
	c.Advance(time.Millisecond)
	if at := <-early; !at.Equal(t0.Add(time.Second)) {
		t.Fatalf("fired at %s, want %s", at, t0.Add(time.Second))
	}
	if c.Waiters() != 1 {
		t.Fatalf("%d waits pending, want the 2 s one", c.Waiters())
	}
	c.Advance(time.Second)
	<-late
	auto := NewFake(t0)
	auto.Auto = true
	<-auto.After(30 * time.Second)
	if got := auto.Now().Sub(t0); got != 30*time.Second {
		t.Fatalf("auto clock moved %s, want 30s", got)
	}
	if !Sleep(auto, time.Minute, nil) || auto.Now().Sub(t0) != 90*time.Second {
		t.Fatalf("Sleep on an auto clock: now %s", auto.Now())
	}
	done := make(chan struct{})
	close(done)
	if Sleep(NewFake(t0), time.Hour, done) {
		t.Fatal("Sleep ignored done")
	}
}

package receipts

import (
	"time"
)

// Clock is the time a reader waits on. Every timestamp and every wait of
// the engine goes through one, so a test drives visibility timeouts with
// a Fake instead of sleeping through them.
type Clock interface {
	Now() time.Time
	// After is time.After on this clock.
	After(d time.Duration) <-chan time.Time
}

// System is the wall clock.
var System Clock = systemClock{}

type systemClock struct{}

func (systemClock) Now() time.Time                         { return time.Now() }
func (systemClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Since is c.Now() - t.
func Since(c Clock, t time.Time) time.Duration { return c.Now().Sub(t) }

// Sleep waits d on c, or until done is closed; false when done closed
// first.
func Sleep(c Clock, d time.Duration, done <-chan struct{}) bool {
	if d <= 0 {
		return true
	}
	select {
	case <-c.After(d):
		return true
	case <-done:
		return false
	}
}

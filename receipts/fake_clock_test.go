package receipts

import (
	"sort"
	"sync"
	"time"
)

// Fake is a Clock that moves only when told (Advance) or, with Auto, by
// itself whenever someone waits: After(d) then moves the clock d on at
// once. Auto fits code whose waits are its only way of letting time pass
// (a mover's idle polls, a wait for a visibility timeout): the run sees
// the same order of events as on the wall clock, in no wall time.
type Fake struct {
	// Auto advances the clock by every wait asked for.
	Auto bool

	mu      sync.Mutex
	now     time.Time
	waiters []waiter
}

type waiter struct {
	at time.Time
	ch chan time.Time
}

// NewFake returns a Fake that reads start.
func NewFake(start time.Time) *Fake { return &Fake{now: start} }

// Now is the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// After fires when the fake time reaches Now()+d (at once with Auto: the
// clock moves there).
func (f *Fake) After(d time.Duration) <-chan time.Time {
	f.mu.Lock()
	ch := make(chan time.Time, 1)
	at := f.now.Add(d)
	f.waiters = append(f.waiters, waiter{at: at, ch: ch})
	auto := f.Auto
	f.mu.Unlock()
	if auto {
		f.AdvanceTo(at)
	} else if d <= 0 {
		f.Advance(0)
	}
	return ch
}

// Advance moves the clock d on and fires every wait it reaches.
func (f *Fake) Advance(d time.Duration) { f.AdvanceTo(f.Now().Add(d)) }

// AdvanceTo moves the clock to t (never back) and fires every wait it
// reaches, earliest first.
func (f *Fake) AdvanceTo(t time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if t.After(f.now) {
		f.now = t
	}
	sort.Slice(f.waiters, func(i, j int) bool { return f.waiters[i].at.Before(f.waiters[j].at) })
	kept := f.waiters[:0]
	for _, w := range f.waiters {
		if w.at.After(f.now) {
			kept = append(kept, w)
			continue
		}
		w.ch <- f.now
	}
	clear(f.waiters[len(kept):])
	f.waiters = kept
}

// Waiters is how many waits are pending: a test advances once the code
// under test waits.
func (f *Fake) Waiters() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.waiters)
}

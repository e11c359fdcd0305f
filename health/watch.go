package health

import (
	"context"
	"time"
)

// WatchBlind is how long a watch may fail to read the alarms before it
// calls that a break: a move that cannot see its dependency stops, as one
// that sees it suffer does.
const WatchBlind = 30 * time.Second

// Break is a watch's news: an alarm left OK (or its streak restarted
// between two reads), or the alarms could not be read.
type Break struct {
	Time  time.Time `json:"time"`
	Alarm string    `json:"alarm,omitempty"`
	State string    `json:"state,omitempty"`
	// Err is why the alarms could not be read, when that is the break.
	Err error `json:"-"`
}

// Reason says what broke, for people; alarm names sanitised.
func (b Break) Reason() string {
	if b.Err != nil {
		return "the alarms could not be read (" + b.Err.Error() + ")"
	}
	return Quote(b.Alarm) + " is " + b.State
}

// WatchRead is one read of a watch: what it saw, or why it saw nothing,
// and since when the reads have failed (zero: this one succeeded).
type WatchRead struct {
	Time    time.Time
	Alarms  []AlarmStatus
	Err     error
	Failing time.Time
}

// Watch reads the alarms every PollWatch, from now, until ctx ends or it
// sees a break: then it sends that one Break and closes the channel. A
// move listens to it between sends and stops at once; after the pause it
// waits again (Wait) and starts a new watch. seen, when set, gets every
// read before it is judged (a watch that cannot see says so).
func (g *Gate) Watch(ctx context.Context, seen func(WatchRead)) <-chan Break {
	ch := make(chan Break, 1)
	go func() {
		defer close(ch)
		var failing time.Time
		for {
			alarms, err := g.read(ctx, false)
			now := g.clock.Now().UTC()
			if ctx.Err() != nil {
				return
			}
			b, ok := g.broken(alarms, err, now, &failing)
			if seen != nil {
				seen(WatchRead{Time: now, Alarms: alarms, Err: err, Failing: failing})
			}
			if ok {
				ch <- b
				return
			}
			if g.clock.Sleep(ctx, g.opts.PollWatch) != nil {
				return
			}
		}
	}()
	return ch
}

// broken judges one read of a watch; failing is when reads began to fail.
func (g *Gate) broken(alarms []AlarmStatus, err error, now time.Time, failing *time.Time) (Break, bool) {
	switch {
	case err != nil && isFinal(err):
		return Break{Time: now, Err: err}, true
	case err != nil:
		if failing.IsZero() {
			*failing = now
		}
		return Break{Time: now, Err: err}, now.Sub(*failing) >= WatchBlind
	}
	*failing = time.Time{}
	for _, a := range alarms {
		if a.State != StateOK || a.Broke {
			return Break{Time: now, Alarm: a.Name, State: a.State}, true
		}
	}
	return Break{}, false
}

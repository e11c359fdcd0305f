package health

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Defaults of the flags: ten minutes of OK is longer than most alarms'
// evaluation (a few one-minute periods), six hours is a night.
const (
	DefaultFor    = 10 * time.Minute
	DefaultGiveUp = 6 * time.Hour
)

// Poll intervals. A wait reads every PollWait (an alarm evaluates at most
// once a period, 10 s for a high-resolution one, 60 s otherwise), a watch
// every PollWatch so a move stops within seconds of a flip; a failed read
// doubles the interval up to PollMax. At most one call per read (MaxAlarms),
// so a wait makes about 0.07 calls a second and a watch 0.2.
const (
	PollWait  = 15 * time.Second
	PollWatch = 5 * time.Second
	PollMax   = time.Minute
	// pollMin is the shortest sleep between two reads, even when a
	// streak is due sooner.
	pollMin = time.Second
)

// Clock is the time the gate waits on: the real one, or a test's.
type Clock interface {
	Now() time.Time
	// Sleep waits d or until ctx ends (ctx's error).
	Sleep(ctx context.Context, d time.Duration) error
}

// RealClock is the wall clock.
type RealClock struct{}

// Now is time.Now.
func (RealClock) Now() time.Time { return time.Now() }

// Sleep sleeps d unless ctx ends first.
func (RealClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Options are a gate's settings: the flags, and what tests change.
type Options struct {
	Alarms []string      // --when-ok, checked by CheckNames
	For    time.Duration // --for: how long every alarm stays OK
	GiveUp time.Duration // --give-up: how long a wait may last
	// PollWait and PollWatch default to the package's.
	PollWait, PollWatch time.Duration
}

// CheckDurations is the flag check of --for and --give-up, before any AWS
// call.
func CheckDurations(forDur, giveUp time.Duration) error {
	switch {
	case forDur <= 0:
		return errors.New("--for must be > 0 (e.g. --for 10m)")
	case giveUp <= 0:
		return errors.New("--give-up must be > 0 (e.g. --give-up 6h)")
	case forDur > giveUp:
		return fmt.Errorf("--for %s is longer than --give-up %s: the wait could never end in OK", forDur, giveUp)
	}
	return nil
}

// Gate reads the alarms and keeps each one's streak between reads.
type Gate struct {
	cw    AlarmsAPI
	opts  Options
	clock Clock

	mu sync.Mutex // a watch's goroutine and the caller read in turn
	// floor is, per alarm, the earliest its current streak may have
	// begun: the last moment this process saw it out of OK (or saw its
	// streak restart), so a flip between two reads never lengthens a
	// streak, and one this process saw begin is timed by its own clock
	// alone (a clock ahead of CloudWatch's cannot lengthen it).
	floor map[string]time.Time
	last  map[string]AlarmStatus
	// dataUntil is, per metric alarm, until when the latest datapoint
	// seen keeps its OK proven (data.go).
	dataUntil map[string]time.Time
	// proven is, per metric alarm, whether its last data proof found
	// datapoints: the first proof sets the streak's floor (data.go).
	proven map[string]bool
}

// New returns a gate; zero durations take the defaults.
func New(cw AlarmsAPI, opts Options, clock Clock) *Gate {
	opts.For = cmp.Or(opts.For, DefaultFor)
	opts.GiveUp = cmp.Or(opts.GiveUp, DefaultGiveUp)
	opts.PollWait = cmp.Or(opts.PollWait, PollWait)
	opts.PollWatch = cmp.Or(opts.PollWatch, PollWatch)
	if clock == nil {
		clock = RealClock{}
	}
	return &Gate{cw: cw, opts: opts, clock: clock, floor: map[string]time.Time{}, last: map[string]AlarmStatus{}, dataUntil: map[string]time.Time{}, proven: map[string]bool{}}
}

// Options returns the gate's settings, defaults filled in.
func (g *Gate) Options() Options { return g.opts }

// AlarmStatus is one alarm in a Status: how it was read, since when its
// streak counts, and how long it still needs.
type AlarmStatus struct {
	Alarm
	// OKSince is when the streak began (zero when not OK).
	OKSince time.Time
	// Left is how much more OK it needs: For when not OK, 0 when done.
	Left time.Duration
	// Broke is true when this read found the alarm out of OK, or its
	// streak restarted, since the previous read.
	Broke bool
	// NoData is why an OK does not count: the alarm may be OK only
	// because its metric has no data (data.go); "" when it counts, or
	// when the read did not ask (a watch's).
	NoData string
}

// Counts says whether the alarm's state counts as healthy: OK, and not
// OK for lack of data.
func (a AlarmStatus) Counts() bool { return a.State == StateOK && a.NoData == "" }

// Check reads the alarms once: for the plan (state now and since when,
// and whether an OK has data behind it), and to refuse a missing or
// unreadable alarm before any wait.
func (g *Gate) Check(ctx context.Context) ([]AlarmStatus, error) {
	return g.read(ctx, true)
}

// read reads the alarms and updates the streaks. prove asks for the data
// proof (a wait's reads): an OK that may come from missing data counts as
// out of OK until a datapoint says otherwise. A watch's reads do not ask:
// during the move it looks for a dependency that suffers, and a metric
// with no data is not that.
func (g *Gate) read(ctx context.Context, prove bool) ([]AlarmStatus, error) {
	alarms, err := Read(ctx, g.cw, g.opts.Alarms)
	if err != nil {
		return nil, err
	}
	var nodata map[string]string
	var floors map[string]time.Time
	if prove {
		nodata, floors = g.noData(ctx, alarms, g.clock.Now().UTC())
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.clock.Now().UTC()
	for a, t := range floors {
		if t.After(g.floor[a]) {
			g.floor[a] = t.UTC()
		}
	}
	out := make([]AlarmStatus, len(alarms))
	for i, a := range alarms {
		prev, seen := g.last[a.Name]
		s := AlarmStatus{Alarm: a, Left: g.opts.For, NoData: nodata[a.Name]}
		switch {
		case !s.Counts():
			s.Broke = seen && prev.Counts()
			g.floor[a.Name] = now
		case seen && (!prev.Counts() || !prev.Since.Equal(a.Since)):
			// Back to OK, or OK again after a flip between two reads:
			// the streak counts from now at the earliest.
			s.Broke = prev.Counts()
			g.floor[a.Name] = now
		}
		if s.Counts() {
			s.OKSince = a.Since
			if f := g.floor[a.Name]; f.After(s.OKSince) {
				s.OKSince = f
			}
			s.Left = max(0, g.opts.For-now.Sub(s.OKSince))
		}
		g.last[a.Name] = s
		out[i] = s
	}
	return out, nil
}

// Floor sets an alarm's floor from the waits file: a resumed wait never
// counts OK from before a moment the killed run saw the alarm out of OK.
func (g *Gate) Floor(alarm string, t time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if t.After(g.floor[alarm]) {
		g.floor[alarm] = t.UTC()
	}
}

package health

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Status is what one read of a wait saw: each alarm, how long the wait has
// lasted and how long until it gives up.
// Its JSON shape is Line's.
type Status struct {
	Time   time.Time
	Waited time.Duration
	// GiveUpAt is when the wait ends without OK.
	GiveUpAt time.Time
	// Left is how long until every alarm has had --for of OK, counted
	// from now if they all stay OK; Ready when it is 0.
	Left   time.Duration
	Ready  bool
	Alarms []AlarmStatus
	// Error is a read that failed and will be tried again (throttled,
	// unreachable); the wait goes on.
	Error string
}

// GiveUpError is a wait that reached --give-up before every alarm had
// --for of OK (exit 3).
type GiveUpError struct {
	Waited time.Duration
	GiveUp time.Duration
	For    time.Duration
	Alarms []AlarmStatus
}

func (e *GiveUpError) Error() string {
	var not []string
	for _, a := range e.Alarms {
		switch {
		case a.Left > 0 && a.State == StateOK && a.NoData != "":
			not = append(not, fmt.Sprintf("%s OK but not counted: %s", Quote(a.Name), a.NoData))
		case a.Left > 0:
			not = append(not, fmt.Sprintf("%s %s since %s", Quote(a.Name), a.State, a.Since.UTC().Format("2006-01-02 15:04:05 UTC")))
		}
	}
	if len(not) == 0 {
		not = append(not, "the alarms could not be read")
	}
	return fmt.Sprintf("gave up after waiting %s (--give-up %s) for %s of OK: %s", round(e.Waited), e.GiveUp, e.For, strings.Join(not, ", "))
}

// Wait polls the alarms until every one has been OK without a break for
// --for (nil), until --give-up counted from started (*GiveUpError), or
// until ctx ends (ctx's error). started is when the wait began — earlier
// than now for a wait resumed from the waits file, whose --give-up counts
// from its first start. report, when not nil, gets every read.
//
// A read that fails for a reason other than a missing alarm or a denied
// call is reported and tried again, the interval doubling up to PollMax:
// CloudWatch throttling a wait is no reason to end it, and no reason to
// call it OK either.
func (g *Gate) Wait(ctx context.Context, started time.Time, report func(Status)) error {
	deadline := started.Add(g.opts.GiveUp)
	delay := g.opts.PollWait
	var last []AlarmStatus
	for {
		alarms, err := g.read(ctx, true)
		now := g.clock.Now().UTC()
		st := Status{Time: now, Waited: now.Sub(started), GiveUpAt: deadline.UTC(), Left: g.opts.For}
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil && isFinal(err):
			return err
		case err != nil:
			st.Error, st.Alarms = err.Error(), last
			delay = min(delay*2, PollMax)
		default:
			last, delay = alarms, g.opts.PollWait
			st.Alarms, st.Left = alarms, maxLeft(alarms)
			st.Ready = st.Left == 0
		}
		if report != nil {
			report(st)
		}
		if st.Ready {
			return nil
		}
		if !now.Before(deadline) {
			return &GiveUpError{Waited: now.Sub(started), GiveUp: g.opts.GiveUp, For: g.opts.For, Alarms: last}
		}
		sleep := delay
		if err == nil {
			sleep = min(sleep, max(st.Left, pollMin))
		}
		sleep = min(sleep, deadline.Sub(now))
		if err := g.clock.Sleep(ctx, sleep); err != nil {
			return err
		}
	}
}

// isFinal tells the read errors no later read can cure.
func isFinal(err error) bool {
	var nf *NotFoundError
	var de *DeniedError
	return errors.As(err, &nf) || errors.As(err, &de)
}

func maxLeft(alarms []AlarmStatus) time.Duration {
	var left time.Duration
	for _, a := range alarms {
		left = max(left, a.Left)
	}
	return left
}

// round is a duration to the second, for people.
func round(d time.Duration) time.Duration { return d.Round(time.Second) }

package redrive

import (
	"context"
	"fmt"
	"time"

	"github.com/mfdlq/mfdlq/health"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/redrive/lease"
)

// PlanWhenOK reads --when-ok's alarms for the plan (their state now and
// since when: a missing one is a *health.NotFoundError, an unreadable one
// a *health.DeniedError, before the question) and returns the plan's
// lines and the session Run waits and watches with (Env.WhenOK). The
// caller sets the session's Report and Info: it draws the status line.
func PlanWhenOK(ctx context.Context, cw health.AlarmsAPI, ws *incident.Workspace, r Request, now time.Time) (*health.Session, []string, error) {
	gate := health.New(cw, health.Options{Alarms: r.WhenOK, For: r.For, GiveUp: r.GiveUp}, nil)
	alarms, err := gate.Check(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("--when-ok: %w", err)
	}
	s := &health.Session{Gate: gate, Waits: health.OpenWaits(ws), Waiting: lease.WaitingOn(r.WhenOK)}
	return s, whenOKPlanLines(alarms, gate.Options(), now), nil
}

// whenOKPlanLines are the plan's lines of --when-ok: each alarm with its
// type, its state now and since when, and what the wait needs.
func whenOKPlanLines(alarms []health.AlarmStatus, opts health.Options, now time.Time) []string {
	lines := []string{fmt.Sprintf("when-ok: the move starts once every alarm below has been OK for %s without a break, reading them every %s (every %s during the move: an alarm leaving OK pauses it); gives up after %s with nothing moved",
		opts.For, opts.PollWait, opts.PollWatch, opts.GiveUp)}
	for _, a := range alarms {
		lines = append(lines, fmt.Sprintf("when-ok: %s (%s alarm) %s since %s — %s", health.Quote(a.Name), a.Type, a.State,
			a.Since.UTC().Format("2006-01-02 15:04:05 UTC"), leftText(a, now)))
	}
	return lines
}

func leftText(a health.AlarmStatus, now time.Time) string {
	switch {
	case a.State == health.StateOK && a.NoData != "":
		return fmt.Sprintf("OK but not counted: %s; needs %s of OK with data", a.NoData, a.Left)
	case a.State != health.StateOK:
		return fmt.Sprintf("needs %s of OK", a.Left)
	case a.Left == 0:
		return fmt.Sprintf("OK for %s already", now.Sub(a.OKSince).Round(time.Second))
	}
	return fmt.Sprintf("%s left", a.Left.Round(time.Second))
}

package health

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/untrusted"
)

// Session is one redrive's use of the gate: the wait before its move, the
// watch during it and each pause, written to the waits file, reported and said in the
// lease. The redrive builds one from its plan and calls Before, then runs
// its move through Watched.
type Session struct {
	Gate  *Gate
	Waits *Waits
	// Run is the redrive's run id, written with each wait.
	Run string
	// Report gets every read of a wait (the status line, the JSON
	// lines); nil: none.
	Report func(Status)
	// Info says what a person should know (resuming, pausing, going on).
	Info func(format string, args ...any)
	// SetWaiting tells the lease which alarms the run waits on ("" when
	// it moves); nil: no lease.
	SetWaiting func(string)
	// Waiting is the lease's word for the alarms (lease.WaitingOn).
	Waiting string

	failing time.Time // when the watch's reads began to fail; zero: they do not
}

// Before waits, before the move, until every alarm has had --for of OK.
// A wait a killed run left on the same alarms (the waits file says so) is
// taken up from its first start, and says how long it has already lasted.
// It returns nil to move, a *GiveUpError, ctx's error on Ctrl-C, or a
// read that cannot succeed (*NotFoundError, *DeniedError).
func (s *Session) Before(ctx context.Context) error {
	now := s.Gate.clock.Now().UTC()
	started := now
	if recs, err := ReadWaits(s.Waits.ws); err == nil {
		if u, ok := Resumable(recs, s.Gate.opts.Alarms); ok {
			started = u.Started
			for a, t := range u.Floors {
				s.Gate.Floor(a, t)
			}
			s.info("when-ok: resuming the wait begun %s: waited %s of --give-up %s", started.Format("2006-01-02 15:04:05 UTC"),
				round(now.Sub(started)), s.Gate.opts.GiveUp)
		}
	}
	return s.wait(ctx, KindBeforeMove, started, now)
}

// Pause is a break during the move: it writes it down, says so, and waits for
// --for of OK again (--give-up counted from the break).
func (s *Session) Pause(ctx context.Context, b Break) error {
	if err := s.Waits.Pause(b); err != nil {
		return err
	}
	s.info("when-ok: paused: %s: the move stopped sending (what was received goes back to the DLQ); waiting for %s of OK again", b.Reason(), s.Gate.opts.For)
	now := s.Gate.clock.Now().UTC()
	if err := s.wait(ctx, KindPause, now, now); err != nil {
		return err
	}
	s.info("when-ok: every alarm OK for %s: the move goes on", s.Gate.opts.For)
	return nil
}

func (s *Session) wait(ctx context.Context, kind string, started, now time.Time) error {
	if err := s.Waits.Start(kind, s.Gate.opts, s.Run, started, now); err != nil {
		return err
	}
	s.setWaiting(s.Waiting)
	defer s.setWaiting("")
	var jerr error
	err := s.Gate.Wait(ctx, started, func(st Status) {
		if e := s.Waits.Observe(st); e != nil && jerr == nil {
			jerr = e
		}
		if s.Report != nil {
			s.Report(st)
		}
	})
	end := s.Gate.clock.Now()
	var gu *GiveUpError
	switch {
	case err == nil:
		err = s.Waits.End(OutcomeOK, "", end)
	case errors.As(err, &gu):
		_ = s.Waits.End(OutcomeGaveUp, err.Error(), end)
	case ctx.Err() != nil:
		_ = s.Waits.End(OutcomeInterrupted, "", end)
	default:
		_ = s.Waits.End(OutcomeFailed, err.Error(), end)
	}
	if err == nil && jerr != nil {
		return fmt.Errorf("write %s: %w", incident.WaitsFile, jerr)
	}
	return err
}

// watched takes each read of a watch: a streak of failed reads is said and
// written when it begins and when it ends — a move whose watch cannot see
// its dependency goes on for up to WatchBlind, and the person watching
// should know it — and an alarm seen in a new state is written. A read
// that cannot succeed (missing, denied) is the break itself: Pause says it.
func (s *Session) watched(r WatchRead) {
	switch {
	case r.Err != nil && isFinal(r.Err):
	case r.Err != nil && s.failing.IsZero():
		s.failing = r.Failing
		s.info("when-ok: the alarms could not be read (%s): the move goes on, and stops if they stay unreadable for %s",
			untrusted.Shorten(untrusted.Terminal(r.Err.Error()), 300), WatchBlind)
		_ = s.Waits.Blind(r.Time, r.Err)
	case r.Err == nil && !s.failing.IsZero():
		s.info("when-ok: the alarms are read again (they could not be for %s)", round(r.Time.Sub(s.failing)))
		_ = s.Waits.Seeing(r.Time, s.failing)
		s.failing = time.Time{}
	}
	if r.Err == nil {
		_ = s.Waits.Observe(Status{Time: r.Time, Alarms: r.Alarms})
	}
}

func (s *Session) info(format string, args ...any) {
	if s.Info != nil {
		s.Info(format, args...)
	}
}

func (s *Session) setWaiting(w string) {
	if s.SetWaiting != nil {
		s.SetWaiting(w)
	}
}

// Watched runs segment (a part of the move) under a watch: a break
// cancels segment's context — the move stops sending, as on Ctrl-C — and
// Pause waits for OK again; then segment runs again for what is left.
// segment says with more whether anything is left (a move that finished
// just as the alarm broke does not wait). It returns segment's last error,
// Pause's error, or nil.
func (s *Session) Watched(ctx context.Context, segment func(ctx context.Context) (more bool, err error)) error {
	for {
		sctx, cancel := context.WithCancel(ctx)
		breaks := s.Gate.Watch(sctx, s.watched)
		var b Break
		var broke atomic.Bool
		stopped := make(chan struct{})
		go func() {
			defer close(stopped)
			if br, ok := <-breaks; ok {
				b = br
				broke.Store(true)
				cancel()
			}
		}()
		more, err := segment(sctx)
		cancel()
		<-stopped
		if err != nil || !broke.Load() || !more || ctx.Err() != nil {
			return err
		}
		if err := s.Pause(ctx, b); err != nil {
			return err
		}
	}
}

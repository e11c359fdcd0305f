package archive

import (
	"context"
	"time"

	"github.com/mfdlq/mfdlq/receipts"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// A receive whose answer is lost hid up to ten messages the export never
// saw, for the visibility timeout it asked (receipts.Lost). When the SDK
// retried, the export does not even see an error: only the queue's count
// of messages in flight tells. So the export never ends "done" while such
// messages may come back: it waits until they can, looks again and
// exports them, or ends saying how many and when they reappear
// (Stats.Hidden, Stats.HiddenUntil).

// maxFailedReceives is how many failed receives in a row end an export
// (each after the SDK's own retries).
const maxFailedReceives = 3

// maxLooks is how many times an export waits out a visibility timeout for
// messages hidden by lost receives before it ends saying so.
const maxLooks = 2

// lookAgain runs when the reading ended on quiet receives: it tells
// whether messages may be hidden by a lost receive (a failed one, or more
// in flight than this export holds and others held at the start), and if
// so waits until they are visible again and returns true to read on. It
// sets Stats.Hidden and Stats.HiddenUntil to what may still be hidden.
func (r *reading) lookAgain(ctx context.Context, look int) bool {
	if r.st.Interrupted || r.st.Limit != "" || (r.o.Max > 0 && r.st.Exported >= r.o.Max) {
		return false
	}
	hidden, until := r.mayBeHidden(context.WithoutCancel(ctx))
	r.st.Hidden, r.st.HiddenUntil = hidden, until
	if hidden == 0 || look >= maxLooks {
		return false
	}
	if r.o.Waiting != nil {
		r.o.Waiting(hidden, until)
	}
	if !receipts.Sleep(r.o.Clock, until.Sub(r.o.Clock.Now()), ctx.Done()) {
		r.st.Interrupted = true
		return false
	}
	r.lost.Forget()
	r.quiet = 0
	return true
}

// mayBeHidden is how many messages a lost receive may be hiding (at most
// ten an attempt of a failed receive, or the surplus in flight) and when they are
// visible again; 0 when none.
func (r *reading) mayBeHidden(ctx context.Context) (int, time.Time) {
	surplus := 0
	if r.o.Backlog <= 0 || r.st.Received < r.o.Backlog {
		// 0 in flight when SQS cannot tell: no surplus.
		inFlight, _ := receipts.InFlight(ctx, r.h.c, r.o.Queue.URL, nil)
		surplus = inFlight - r.h.count() - int(r.o.Queue.Depth.InFlight)
	}
	switch {
	case r.lost.Failures() > 0:
		if n := max(surplus, r.lostBound()); n > 0 {
			return n, r.lost.Visible()
		}
	case surplus > 0:
		// The SDK retried a receive whose answer was lost, or another
		// reader came: any receive of ours may have been it.
		return surplus, r.lost.LastStart().Add(r.o.Visibility + receipts.Margin)
	}
	return 0, time.Time{}
}

// lostBound is the most messages the failed receives may hide: ten an
// attempt of each (the SDK's, sqsapi.MaxAttempts).
func (r *reading) lostBound() int {
	return r.lost.Bound(sqsapi.MaxAttempts, r.o.Backlog, r.st.Received)
}

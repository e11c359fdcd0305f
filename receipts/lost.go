package receipts

import (
	"context"
	"errors"
	"time"

	"github.com/aws/smithy-go"

	"github.com/mfdlq/mfdlq/awserr"
)

// A receive whose answer is lost — a dropped connection after SQS carried
// it out, a 5xx sent after the fact, the SDK's closed-connection bug on a
// 200 — hid up to ten messages the reader never saw, for the visibility
// timeout it asked. A release SQS did not confirm leaves its messages
// hidden the same way. Lost keeps until when such messages may be hidden,
// so the reader never ends "done" while one may come back.

// Margin is added to a visibility timeout counted from an error: SQS's
// own timer may end a moment after the one we count.
const Margin = time.Second

// Lost is the receives of one reader that may have hidden messages it
// never saw. Not safe for concurrent use: its caller locks.
type Lost struct {
	// Visibility is how long a receive of the reader hides a message.
	Visibility time.Duration

	failed      int       // receives that failed after SQS may have acted
	consecutive int       // receives failed in a row
	until       time.Time // when what strayed is visible again
	last        time.Time // when the latest receive started
}

// MaybeCarriedOut tells whether a failed call may have been carried out
// by SQS: a broken connection or a server fault may (awserr); a refusal
// (denied, no such queue, bad request, throttled) or a cancel by the
// caller was not.
func MaybeCarriedOut(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var api smithy.APIError
	return awserr.ServerFault(err) || !errors.As(err, &api)
}

// Started notes that a receive starts at t.
func (l *Lost) Started(t time.Time) { l.last = t }

// LastStart is when the latest receive started.
func (l *Lost) LastStart() time.Time { return l.last }

// Failed notes a receive that failed with err, its error seen at end:
// every attempt SQS may have carried out began before, so what it hid is
// visible again by end + the visibility timeout. It returns whether the
// receive may have hidden messages.
func (l *Lost) Failed(end time.Time, err error) bool {
	l.consecutive++
	if !MaybeCarriedOut(err) {
		return false
	}
	l.failed++
	l.Stray(end.Add(l.Visibility))
	return true
}

// Succeeded notes a receive that got its answer.
func (l *Lost) Succeeded() { l.consecutive = 0 }

// Consecutive is how many receives failed in a row.
func (l *Lost) Consecutive() int { return l.consecutive }

// Failures is how many receives failed after SQS may have acted since
// Forget.
func (l *Lost) Failures() int { return l.failed }

// Forget drops the failures counted: the reader waited until what they
// hid was visible again.
func (l *Lost) Forget() { l.failed = 0 }

// Stray notes that a message no one holds may stay hidden until t (a lost
// receive, a release SQS did not confirm).
func (l *Lost) Stray(t time.Time) { l.until = Later(l.until, t) }

// Until is when every message that strayed is visible again by SQS's
// timer; zero when none did.
func (l *Lost) Until() time.Time { return l.until }

// Visible is Until with the Margin: when a look at the queue can trust
// that they are back; zero when none strayed.
func (l *Lost) Visible() time.Time {
	if l.until.IsZero() {
		return l.until
	}
	return l.until.Add(Margin)
}

// Bound is the most messages the failed receives may hide: ten for each
// of attempts a receive makes (the SDK's retries included), no more than
// the part of the backlog not received (when backlog > 0).
func (l *Lost) Bound(attempts, backlog, received int) int {
	bound := 10 * attempts * l.failed
	if backlog > 0 {
		bound = min(bound, max(backlog-received, 0))
	}
	return bound
}

// Later is the later of a and b.
func Later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// AwaitVisible waits on c until at, then asks hidden whether messages
// are still hidden; while they are, it looks again a Margin later, at
// most looks times in all. It returns false when ctx ended the wait
// (the messages may still be hidden), true otherwise.
func AwaitVisible(ctx context.Context, c Clock, at time.Time, looks int, hidden func() bool) bool {
	for look := 0; look < looks; look++ {
		if !Sleep(c, at.Sub(c.Now()), ctx.Done()) {
			return false
		}
		if !hidden() {
			return true
		}
		at = c.Now().Add(Margin)
	}
	return true
}

package archive

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"

	"github.com/mfdlq/mfdlq/awserr"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// A receive whose answer is lost — a dropped connection after SQS carried
// it out, a 5xx sent after the fact, the SDK's closed-connection bug on a
// 200 — hid up to ten messages the export never saw, for the visibility
// timeout it asked. When the SDK retried, the export does not even see an
// error: only the queue's count of messages in flight tells. So the
// export never ends "done" while such messages may come back: it waits
// until they can, looks again and exports them, or ends saying how many
// and when they reappear (Stats.Hidden, Stats.HiddenUntil).

// maxFailedReceives is how many failed receives in a row end an export
// (each after the SDK's own retries).
const maxFailedReceives = 3

// maxLooks is how many times an export waits out a visibility timeout for
// messages hidden by lost receives before it ends saying so.
const maxLooks = 2

// lostReceives tracks the receives that may have hidden messages unseen.
type lostReceives struct {
	failed      int       // receives that failed after SQS may have acted
	consecutive int       // failed in a row
	until       time.Time // when what they hid is visible again
	last        time.Time // when the latest receive started
}

// maybeCarriedOut tells whether a failed call may have been carried out
// by SQS: a broken connection or a server fault may (awserr); a refusal
// (denied, no such queue, bad request, throttled) was not.
func maybeCarriedOut(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var api smithy.APIError
	return awserr.ServerFault(err) || !errors.As(err, &api)
}

// failedReceive records a receive that failed with err, its error seen at
// end: every attempt SQS may have carried out began before, so what they
// hid is visible again by end + the visibility timeout (+ a second).
func (l *lostReceives) failedReceive(end time.Time, visibility time.Duration, err error) {
	l.consecutive++
	if maybeCarriedOut(err) {
		l.failed++
		l.until = later(l.until, end.Add(visibility+time.Second))
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

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
	t := time.NewTimer(time.Until(until))
	defer t.Stop()
	select {
	case <-ctx.Done():
		r.st.Interrupted = true
		return false
	case <-t.C:
	}
	r.lost.failed, r.quiet = 0, 0
	return true
}

// mayBeHidden is how many messages a lost receive may be hiding (at most
// ten an attempt of a failed receive, or the surplus in flight) and when they are
// visible again; 0 when none.
func (r *reading) mayBeHidden(ctx context.Context) (int, time.Time) {
	surplus := 0
	if r.o.Backlog <= 0 || r.st.Received < r.o.Backlog {
		surplus = r.inFlight(ctx) - r.h.count() - int(r.o.Queue.Depth.InFlight)
	}
	switch {
	case r.lost.failed > 0:
		if n := max(surplus, r.lostBound()); n > 0 {
			return n, r.lost.until
		}
	case surplus > 0:
		// The SDK retried a receive whose answer was lost, or another
		// reader came: any receive of ours may have been it.
		return surplus, r.lost.last.Add(r.o.Visibility + time.Second)
	}
	return 0, time.Time{}
}

// lostBound is the most messages the failed receives may hide: ten an
// attempt of each, no more than the backlog not seen.
func (r *reading) lostBound() int {
	bound := 10 * sqsapi.MaxAttempts * r.lost.failed
	if r.o.Backlog > 0 {
		bound = min(bound, max(r.o.Backlog-r.st.Received, 0))
	}
	return bound
}

// inFlight is SQS's count of the queue's messages in flight; 0 when it
// cannot tell.
func (r *reading) inFlight(ctx context.Context) int {
	out, err := r.h.c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(r.o.Queue.URL),
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameApproximateNumberOfMessagesNotVisible}})
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(out.Attributes[string(types.QueueAttributeNameApproximateNumberOfMessagesNotVisible)])
	return n
}

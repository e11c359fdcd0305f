package canary

import (
	"context"
	"fmt"
	"time"

	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// The peek finds a canary message that came back only when it reaches it,
// and it does not on a big DLQ: SQS hands out older messages first and a
// message dead-lettered during the canary lands behind the backlog; on a
// FIFO DLQ it never gets past the first batch of a message group. So the
// proof that nothing came back is the DLQ's count: visible + in flight +
// delayed must be what it held before the canary less what the canary took
// out of it, exactly. More is a return or a new failure, fewer is
// something else taking messages out (retention, another reader) that may
// hide a return: either way the canary is not proven unless the peek saw
// every message in the DLQ and none was the canary's. The count cannot
// tell a return from a new failure of another producer: on a DLQ still
// receiving failures the canary is not proven, and the way on is to stop
// them (mfdlq contain) or to move without proof (--canary 0).

// HaltUnproven starts Stats.Halted when the DLQ's count cannot prove that
// the canary did not come back: the rest stayed in the DLQ.
const HaltUnproven = "canary not proven: "

// dlqCount is the DLQ the canary's returns land in, as counted before it.
type dlqCount struct {
	q *sqsapi.Queue
	// before is its visible + in flight + delayed before the canary;
	// known, that it was read.
	before int64
	known  bool
	// last is its last count.
	last sqsapi.Depth
}

// countBefore counts the DLQ the canary's returns land in (nil: none to
// look in). A count that cannot be read is said once; the canary is then
// proven only by a peek that sees the whole DLQ.
func (ch *Check) countBefore(ctx context.Context) *dlqCount {
	q := ch.DLQ
	if q == nil {
		return nil
	}
	c := &dlqCount{q: q}
	cp := *q
	if err := sqsapi.Refresh(ctx, ch.SQS, &cp); err != nil {
		ch.Warn("canary: the count of %s cannot be read (%v): only a peek of the whole DLQ can prove the canary", q.Name, err)
		return c
	}
	c.before, c.known = cp.Depth.Total(), true
	return c
}

// want is what the DLQ should hold after a canary that took taken out of
// it and of which nothing came back.
func (c *dlqCount) want(taken int) int64 { return c.before - int64(taken) }

// settle reads the DLQ's count until it is what it should be or extra has
// passed (SQS's approximate counts settle within about a minute). It
// reports whether the count proves the canary.
func (ch *Check) settle(ctx context.Context, c *dlqCount, taken int, extra time.Duration) (bool, error) {
	if !c.known {
		return false, nil
	}
	deadline, step := time.Now().Add(extra), min(canaryPoll, max(extra/5, 50*time.Millisecond))
	for {
		cp := *c.q
		if err := sqsapi.Refresh(ctx, ch.SQS, &cp); err != nil {
			return false, fmt.Errorf("canary: count of %s: %w", c.q.Name, err)
		}
		c.last = cp.Depth
		if c.last.Total() == c.want(taken) {
			return true, nil
		}
		if !time.Now().Before(deadline) || ctx.Err() != nil {
			return false, nil
		}
		select {
		case <-ctx.Done():
		case <-time.After(min(step, time.Until(deadline))):
		}
	}
}

// unprovenText is the reason to stop when neither the count nor the peek
// proves the canary: what the DLQ holds against what it should, what the
// peek saw, and what to do.
func unprovenText(c *dlqCount, taken, peeked int) string {
	q := c.q
	why := ""
	switch {
	case !c.known:
		why = fmt.Sprintf("the count of %s could not be read before the canary, and the peek saw %d of its messages", q.Name, peeked)
	default:
		now, want := c.last.Total(), c.want(taken)
		seen := fmt.Sprintf("%s holds %d (%d visible, %d in flight, %d delayed), %d before the canary less the %d it took is %d",
			q.Name, now, c.last.Visible, c.last.InFlight, c.last.Delayed, c.before, taken, want)
		if now > want {
			why = fmt.Sprintf("%s: %s came back or arrived, and the peek saw %d of them", seen, plural.Of(int(now-want), "message"), peeked)
		} else {
			why = fmt.Sprintf("%s: %s taken out by something else (retention, another reader) may hide a return, and the peek saw %d of them", seen, plural.Of(int(want-now), "message"), peeked)
		}
		if q.FIFO {
			why += " (on a FIFO DLQ a peek never gets past the first batch of a message group)"
		}
	}
	return HaltUnproven + why + ": the canary's messages may have failed back behind the backlog; stop new failures into it (mfdlq contain) and run the same command again, or look with mfdlq verify --queue " + q.Name + "; --canary 0 moves without proof"
}

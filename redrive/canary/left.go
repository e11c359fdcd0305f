package canary

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// A canary that nothing came back from proves the fix only if something
// consumed it: a consumer that is stopped, scaled to zero or reading
// another queue returns nothing either. So the canary also passes only
// when its messages have left each destination queue.
//
// A quiet destination (no traffic of its own in CloudWatch, or no data) is
// judged by its depth: visible + in flight + delayed back to what it was
// before the canary. A live one (CloudWatch shows sends or deletions of
// its own over the 15 minutes before) by its metrics: the age of its
// oldest message below the time since the canary's last send, or its
// deletions since the canary at least its own rate's share plus the
// canary (canary_live.go). Where the canary has not left after the wait,
// mfdlq looks again for up to canaryExtra; still there, the rest stays in
// the DLQ (OutcomeCanaryStill). Targets that are not queues (Lambda, SNS,
// EventBridge) have no depth to read: only returns judge them.

// canaryPoll is how often, at most, the depths are read again during the
// extra wait (a fifth of it when shorter): one GetQueueAttributes per
// destination per look.
const canaryPoll = 5 * time.Second

// canaryExtraMax bounds the extra wait: SQS's approximate counts settle
// within about a minute, and a consumer that has not taken the canary in
// the canary's wait and two more minutes is not consuming.
const canaryExtraMax = 2 * time.Minute

// canaryExtra is how long mfdlq waits, after the canary's wait, for the
// canary to leave: as long again, at most canaryExtraMax (a short
// --canary-wait keeps it short).
func canaryExtra(wait time.Duration) time.Duration { return min(wait, canaryExtraMax) }

// canaryDest is one destination queue of the canary, as read before it.
type canaryDest struct {
	q *sqsapi.Queue
	// before is its depth before the canary.
	before int64
	// own is its own traffic before the canary; nil: quiet.
	own *ownTraffic
	// moved is how many of the canary went to it; left, that they left
	// (or that nothing more can be said).
	moved int
	left  bool
	// depth is its last look.
	depth sqsapi.Depth
}

// canaryBefore reads each destination queue's depth (one
// GetQueueAttributes each) and its own traffic before the canary. A
// destination whose depth cannot be read is left out, said once.
func (ch *Check) canaryBefore(ctx context.Context) []*canaryDest {
	var out []*canaryDest
	for _, d := range ch.Dests {
		q := *d
		if err := sqsapi.Refresh(ctx, ch.SQS, &q); err != nil {
			ch.Warn("canary: the depth of %s cannot be read (%v): only returns judge its canary", d.Name, err)
			continue
		}
		out = append(out, &canaryDest{q: d, before: q.Depth.Total(), own: ch.ownTraffic(ctx, d.Name)})
	}
	return out
}

// canaryLeft waits, after the canary's wait, until the canary has left
// every destination or canaryExtra has passed. halt is the reason to stop
// (the canary is still in a destination); extra tells that it waited
// longer than the canary's wait, so that returns are looked for again.
func (ch *Check) canaryLeft(ctx context.Context, dests []*canaryDest, s Sent, span canarySpan) (halt string, extra bool, err error) {
	for _, c := range dests {
		c.moved = s.Moved
		if ch.PerSource {
			c.moved = s.To[c.q.URL]
		}
		c.left = c.moved == 0
	}
	extraWait := canaryExtra(ch.Wait)
	deadline, step := time.Now().Add(extraWait), min(canaryPoll, max(extraWait/5, 50*time.Millisecond))
	for {
		if err := ch.lookCanary(ctx, dests, span); err != nil {
			return "", extra, err
		}
		if allLeft(dests) || !time.Now().Before(deadline) || ctx.Err() != nil {
			break
		}
		extra = true
		select {
		case <-ctx.Done():
		case <-time.After(min(step, time.Until(deadline))):
		}
	}
	if ctx.Err() != nil {
		return "", extra, nil
	}
	// A live destination CloudWatch has no point for since the canary
	// (minutes behind, or unreadable) is not proven: no data is never
	// "consumed" — its depth, moved by its own traffic, cannot say either.
	return stillText(dests, time.Since(span.sent)), extra, nil
}

// lookCanary reads each destination the canary has not yet left.
func (ch *Check) lookCanary(ctx context.Context, dests []*canaryDest, span canarySpan) error {
	for _, c := range dests {
		if c.left {
			continue
		}
		if c.own.live() {
			ch.liveLeft(ctx, c, span)
			continue
		}
		q := *c.q
		if err := sqsapi.Refresh(ctx, ch.SQS, &q); err != nil {
			return fmt.Errorf("canary: depth of %s: %w", c.q.Name, err)
		}
		c.depth = q.Depth
		c.left = q.Depth.Total() <= c.before
	}
	return nil
}

func allLeft(dests []*canaryDest) bool {
	for _, c := range dests {
		if !c.left {
			return false
		}
	}
	return true
}

// stillText is the reason to stop, naming each destination the canary is
// still in; "" when it left them all. A quiet destination still holding
// it was not consumed (HaltStill); a live one whose metrics do not show it
// consumed is not proven (HaltUnproven): its own traffic may hide it
// either way, and no data is no evidence.
func stillText(dests []*canaryDest, after time.Duration) string {
	var still, unproven []string
	for _, c := range dests {
		switch {
		case c.left:
		case c.own.live() && c.own.noData:
			unproven = append(unproven, fmt.Sprintf("CloudWatch has no %s or %s for %s since the canary after %s, and its own traffic moves its depth: whether the canary's %s consumed cannot be told",
				cwapi.MetricAgeOfOldest, cwapi.MetricMessagesDeleted, c.q.Name, after.Round(time.Second), areText(c.moved)))
		case c.own.live():
			unproven = append(unproven, fmt.Sprintf("the canary's %s not shown as consumed from %s after %s (%s)", areText(c.moved), c.q.Name, after.Round(time.Second), c.own.seen))
		default:
			n := min(int64(c.moved), c.depth.Total()-c.before)
			still = append(still, fmt.Sprintf("the canary's %s still in %s after %s (%d visible, %d in flight)", areText(int(n)), c.q.Name, after.Round(time.Second), c.depth.Visible, c.depth.InFlight))
		}
	}
	switch {
	case len(still) > 0:
		return HaltStill + strings.Join(append(still, unproven...), "; ") + ": nothing consumed them — is the consumer running? (mfdlq contain)"
	case len(unproven) > 0:
		return HaltUnproven + strings.Join(unproven, "; ") + ": its own traffic can hide a canary that failed; run the same command again with a longer --canary-wait (CloudWatch is a minute or more late), or a bigger --canary, or look with mfdlq verify; --canary 0 moves without proof"
	}
	return ""
}

// areText is "1 message is" or "3 messages are".
func areText(n int) string {
	if n == 1 {
		return "1 message is"
	}
	return fmt.Sprintf("%d messages are", n)
}

// HaltStill starts Stats.Halted when the canary did not leave a
// destination: nothing consumed it, and the rest stayed in the DLQ.
const HaltStill = "canary: "

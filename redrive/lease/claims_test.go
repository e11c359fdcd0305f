package lease

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// acquireOld is the tag lease as it was before issue 46, for the table
// below: the one shared tag, last writer wins, read back a second later.
func acquireOld(ctx context.Context, c Tags, me Holder) error {
	read := func() (Holder, bool) {
		out, _ := c.ListQueueTags(ctx, &sqs.ListQueueTagsInput{QueueUrl: aws.String("q")})
		return ParseHolder(out.Tags[Tag])
	}
	if h, ok := read(); ok && !h.same(me) && Live(h, time.Now()) {
		return &HeldError{Holder: h}
	}
	if _, err := c.TagQueue(ctx, &sqs.TagQueueInput{QueueUrl: aws.String("q"), Tags: map[string]string{Tag: me.String()}}); err != nil {
		return err
	}
	time.Sleep(time.Second)
	if h, ok := read(); !ok || !h.same(me) {
		return &HeldError{Holder: h, Race: true}
	}
	return nil
}

// lagModel is how the fake queue's tags propagate.
type lagModel struct {
	lag    time.Duration
	sticky bool
}

func (m lagModel) String() string {
	if m.lag == 0 {
		return "none"
	}
	if m.sticky {
		return fmt.Sprintf("%v, own at once", m.lag)
	}
	return fmt.Sprintf("%v, all alike", m.lag)
}

// pairOutcome counts what two runs did over the offsets.
type pairOutcome struct {
	both, one, neither int
	// slowest is the longest a winner took to go on (its Acquire).
	slowest time.Duration
}

// racePairs starts run A at 0 and run B at each offset in [-6 s, +2 s]
// by 20 ms steps (401 pairs) against a fresh fake queue at 20 ms a call,
// B's first TagQueue stalled by stall, and counts the pairs where both,
// one or neither went on.
func racePairs(t *testing.T, old bool, stall time.Duration, m lagModel) pairOutcome {
	var out pairOutcome
	for d := -6 * time.Second; d <= 2*time.Second; d += 20 * time.Millisecond {
		q := &fakeQueue{latency: 20 * time.Millisecond, lag: m.lag, sticky: m.sticky}
		var wg sync.WaitGroup
		var on [2]bool
		var took [2]time.Duration
		for i, at := range []time.Duration{0, d} {
			c := &fakeClient{q: q, id: i}
			if i == 1 {
				c.stall = stall
			}
			wg.Go(func() {
				time.Sleep(at + 6*time.Second)
				start := time.Now()
				me := Me("op", fmt.Sprintf("r-%c", 'a'+i), start)
				var err error
				if old {
					err = acquireOld(t.Context(), c, me)
				} else {
					_, err = Acquire(t.Context(), c, "q", me, false, time.Now)
				}
				var held *HeldError
				if err != nil && !errors.As(err, &held) && !errors.Is(err, ErrNotReadBack) {
					t.Errorf("offset %v: %v", d, err)
				}
				on[i], took[i] = err == nil, time.Since(start)
			})
		}
		wg.Wait()
		switch {
		case on[0] && on[1]:
			out.both++
		case on[0] || on[1]:
			out.one++
		default:
			out.neither++
		}
		for i := range on {
			if on[i] {
				out.slowest = max(out.slowest, took[i])
			}
		}
	}
	return out
}

// The cost of the promise, measured: two runs A and B of one DLQ, B
// starting from 6 s before A to 2 s after it (401 pairs, 20 ms a call),
// B's write stalled 0 to 5 s after its look, the tags readable at once or
// lagging (alike to every read, or to the writer at once and to the
// other later). The lease before issue 46 (one tag, 1 s) lets both go on
// whenever a stall or a lag outlasts its second; announce-then-check
// never does while the reads agree, whatever the stall or lag, and
// lets both go on only when the reads disagree for longer than Settle.
// The table is in the test's log (go test -v -run TestLeasePairs).
func TestLeasePairs(t *testing.T) {
	stalls := []time.Duration{0, 100 * time.Millisecond, 1200 * time.Millisecond, 5 * time.Second}
	models := []lagModel{{}, {lag: 300 * time.Millisecond}, {lag: 1500 * time.Millisecond}, {lag: 5 * time.Second},
		{lag: 150 * time.Millisecond, sticky: true}, {lag: 300 * time.Millisecond, sticky: true}, {lag: 1500 * time.Millisecond, sticky: true}}
	var table strings.Builder
	fmt.Fprintf(&table, "%-8s %-22s | %-28s | %s\n", "B stall", "tag lag", "old (1 s, one tag): both/one/neither", "new (claims, Settle 200 ms): both/one/neither, slowest win")
	synctest.Test(t, func(t *testing.T) {
		for _, stall := range stalls {
			for _, m := range models {
				o := racePairs(t, true, stall, m)
				n := racePairs(t, false, stall, m)
				fmt.Fprintf(&table, "%-8v %-22v | %3d / %3d / %3d %-12s | %3d / %3d / %3d, %v\n", stall, m, o.both, o.one, o.neither, "", n.both, n.one, n.neither, n.slowest)
				agree := !m.sticky || m.lag <= Settle
				if agree && n.both != 0 {
					t.Errorf("stall %v, lag %v: both went on in %d pairs under the new lease", stall, m, n.both)
				}
				if m.lag < readBackWithin && n.neither > 0 && !m.sticky {
					t.Errorf("stall %v, lag %v: neither went on in %d pairs", stall, m, n.neither)
				}
				if stall > time.Second && m.lag < time.Second && o.both == 0 {
					t.Errorf("stall %v, lag %v: the old lease never let both go on; the table measures nothing", stall, m)
				}
			}
		}
		t.Log("two runs, 401 start offsets each:\n" + table.String())
	})
}

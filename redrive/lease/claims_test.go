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

	"github.com/mfdlq/mfdlq/tagvalue"
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

// rivalHolder is a live run on another host.
func rivalHolder(run string, now time.Time) Holder {
	return Holder{Operator: "bo", Host: "laptop-9", PID: 7, Run: run, Since: now.UTC().Truncate(time.Second), Expires: now.Add(TTL).UTC().Truncate(time.Second)}
}

// tagNow writes tags on q as client 9 (another run) would.
func tagNow(q *fakeQueue, tags map[string]string) {
	q.add(fakeOp{at: time.Now(), by: 9, set: tags})
}

// Uncontended, the lease is confirmed after three calls and Settle: at
// 20 ms a call, 260 ms (the lease before issue 46: 1,060 ms).
func TestLeaseConfirmTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, old := range []bool{false, true} {
			q := &fakeQueue{latency: 20 * time.Millisecond}
			c := &fakeClient{q: q}
			start := time.Now()
			var err error
			if old {
				err = acquireOld(t.Context(), c, Me("op", "r-1", start))
			} else {
				_, err = Acquire(t.Context(), c, "q", Me("op", "r-1", start), false, time.Now)
			}
			want := 60*time.Millisecond + Settle
			if old {
				want = 60*time.Millisecond + time.Second
			}
			if took := time.Since(start); err != nil || took != want {
				t.Errorf("old %v: %v after %v, want nil after %v", old, err, took, want)
			}
		}
	})
}

// A live run's claim refuses a second run before it writes anything; a
// dead run's claim is removed, and the run goes on. Other tags of the
// queue are left as they are.
func TestLeaseClaimsRefuseAndDeadOnesGo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		now := time.Now()
		q := &fakeQueue{latency: 20 * time.Millisecond}
		c := &fakeClient{q: q}
		rival := rivalHolder("r-live", now)
		tagNow(q, map[string]string{ClaimPrefix + "r-live": rival.String(), "team": "payments"})
		_, err := Acquire(t.Context(), c, "q", Me("op", "r-me", now), false, time.Now)
		var held *HeldError
		if !errors.As(err, &held) || held.Holder.Run != "r-live" || !held.Race || c.calls["TagQueue"] != 0 {
			t.Fatalf("beside a live claim: %v (%d TagQueue); want held by r-live, nothing written", err, c.calls["TagQueue"])
		}
		if h, ok, err := CurrentHolder(t.Context(), c, "q"); err != nil || !ok || h.Run != "r-live" {
			t.Errorf("CurrentHolder: %+v %v %v; want the live claim's run", h, ok, err)
		}

		dead := rival
		dead.Run, dead.Expires = "r-dead", now.Add(-time.Second).UTC().Truncate(time.Second)
		q.add(fakeOp{at: time.Now(), by: 9, del: []string{ClaimPrefix + "r-live"}, set: map[string]string{ClaimPrefix + "r-dead": dead.String()}})
		l, err := Acquire(t.Context(), c, "q", Me("op", "r-me", time.Now()), false, time.Now)
		if err != nil {
			t.Fatal(err)
		}
		tags := q.read(0, time.Now())
		if _, ok := tags[ClaimPrefix+"r-dead"]; ok || tags["team"] != "payments" || tags[ClaimPrefix+"r-me"] == "" || tags[Tag] != tags[ClaimPrefix+"r-me"] {
			t.Fatalf("after taking the lease: %v; want r-dead's claim gone, the team's tag kept, this run's claim and the shared tag", tags)
		}
		if err := l.Release(t.Context()); err != nil {
			t.Fatal(err)
		}
		if tags := q.read(0, time.Now()); len(tags) != 1 || tags["team"] != "payments" {
			t.Fatalf("after release: %v; want the team's tag alone", tags)
		}
	})
}

// A renewal that finds another live run's claim (one that went on beside
// this run) loses the lease; one that finds a dead run's claim removes it
// and renews.
func TestLeaseKeepLosesToAnotherClaim(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := &fakeQueue{latency: 20 * time.Millisecond}
		c := &fakeClient{q: q}
		l, err := Acquire(t.Context(), c, "q", Me("op", "r-me", time.Now()), false, time.Now)
		if err != nil {
			t.Fatal(err)
		}
		var lost []Holder
		l.Keep(func(h Holder) { lost = append(lost, h) }, func(err error) { t.Errorf("renewal: %v", err) })
		dead := rivalHolder("r-dead", time.Now())
		dead.Expires = time.Now().Add(-time.Second)
		tagNow(q, map[string]string{ClaimPrefix + "r-dead": dead.String()})
		before := q.read(0, time.Now())[Tag]
		time.Sleep(TTL/4 + time.Second)
		synctest.Wait()
		tags := q.read(0, time.Now())
		if len(lost) != 0 || tags[ClaimPrefix+"r-dead"] != "" || tags[Tag] == before || tags[Tag] != tags[ClaimPrefix+"r-me"] {
			t.Fatalf("renewal beside a dead claim: lost %v, tags %v; want the dead claim gone and both tags renewed", lost, tags)
		}
		tagNow(q, map[string]string{ClaimPrefix + "r-beside": rivalHolder("r-beside", time.Now()).String()})
		time.Sleep(TTL / 4)
		synctest.Wait()
		if len(lost) != 1 || lost[0].Run != "r-beside" {
			t.Fatalf("renewal beside a live claim: lost %v; want r-beside", lost)
		}
		if err := l.Release(t.Context()); err != nil {
			t.Fatal(err)
		}
		if tags := q.read(0, time.Now()); tags[ClaimPrefix+"r-me"] != "" || tags[ClaimPrefix+"r-beside"] == "" {
			t.Fatalf("after release: %v; want this run's claim gone, the other's kept", tags)
		}
	})
}

// --take-over takes a live run's lease: it ignores that run's claim,
// removes it, and the run taken over loses at its next renewal and, on
// release, leaves the new holder's tags alone.
func TestLeaseTakeOverClaims(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := &fakeQueue{latency: 20 * time.Millisecond}
		old, err := Acquire(t.Context(), &fakeClient{q: q, id: 1}, "q", Me("op", "r-old", time.Now()), false, time.Now)
		if err != nil {
			t.Fatal(err)
		}
		var lost []Holder
		old.Keep(func(h Holder) { lost = append(lost, h) }, nil)
		if _, err := Acquire(t.Context(), &fakeClient{q: q, id: 2}, "q", Me("op", "r-new", time.Now()), false, time.Now); err == nil {
			t.Fatal("a second run without --take-over went on")
		}
		nw, err := Acquire(t.Context(), &fakeClient{q: q, id: 2}, "q", Me("op", "r-new", time.Now()), true, time.Now)
		if err != nil {
			t.Fatal(err)
		}
		tags := q.read(0, time.Now())
		if tags[ClaimPrefix+"r-old"] != "" || tags[ClaimPrefix+"r-new"] == "" || !strings.Contains(tags[Tag], "run=r-new") {
			t.Fatalf("after the take-over: %v; want r-new's claim and shared tag, r-old's claim gone", tags)
		}
		nw.Keep(func(h Holder) { t.Errorf("the new holder lost its lease to %v", h.Run) }, nil)
		time.Sleep(TTL/4 + time.Second)
		synctest.Wait()
		if len(lost) != 1 || lost[0].Run != "r-new" {
			t.Fatalf("the run taken over: lost %v; want to r-new", lost)
		}
		if err := old.Release(t.Context()); err != nil {
			t.Fatal(err)
		}
		if tags := q.read(0, time.Now()); tags[ClaimPrefix+"r-new"] == "" || !strings.Contains(tags[Tag], "run=r-new") {
			t.Fatalf("after the old run's release: %v; want r-new's tags", tags)
		}
		if err := nw.Release(t.Context()); err != nil {
			t.Fatal(err)
		}
		if tags := q.read(0, time.Now()); len(tags) != 0 {
			t.Fatalf("after release: %v", tags)
		}
	})
}

// The claim's key holds a run id of any length or characters within
// SQS's key limits: at most 128 characters, of those a tag allows.
func TestClaimKeyFits(t *testing.T) {
	k := claimKey(Holder{Run: strings.Repeat("run id é\x1b[31m ", 40)})
	if len(k) > 128 || !strings.HasPrefix(k, ClaimPrefix) {
		t.Fatalf("claim key %q: %d characters", k, len(k))
	}
	for _, r := range k {
		if !tagvalue.Allowed(r) || r == ' ' {
			t.Fatalf("claim key %q holds %q", k, r)
		}
	}
}

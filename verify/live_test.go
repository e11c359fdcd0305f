package verify

import (
	"strings"
	"testing"
	"time"

	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

func fp(v float64) *float64 { return &v }

func TestBaselineOf(t *testing.T) {
	if b := BaselineOf(nil, nil, nil); b != nil || b.Live() {
		t.Fatalf("no points: %+v, want nil and quiet", b)
	}
	// 15 minutes of history, only 3 with points: the rate spreads over the
	// whole history (a minute without a point had no traffic).
	pts := []cwapi.Point{{Time: t0, Value: 150}, {Time: t0.Add(time.Minute), Value: 150}, {Time: t0.Add(2 * time.Minute), Value: 150}}
	b := BaselineOf(pts, pts[:1], []cwapi.Point{{Time: t0, Value: 2}, {Time: t0.Add(time.Minute), Value: 4}})
	if !b.Live() || b.Minutes != 3 || b.SentPerMinute != 30 || b.DeletedPerMinute != 10 || b.AgeOfOldest == nil || *b.AgeOfOldest != 3 {
		t.Fatalf("baseline: %+v", b)
	}
	if b := BaselineOf([]cwapi.Point{{Time: t0, Value: 0}}, nil, nil); b.Live() {
		t.Errorf("zero traffic is quiet: %+v", b)
	}
}

func TestMinuteSumOf(t *testing.T) {
	from := t0.Add(90 * time.Second) // the move began at 03:01:30
	pts := []cwapi.Point{{Time: t0, Value: 99}, {Time: t0.Add(time.Minute), Value: 60}, {Time: t0.Add(2 * time.Minute), Value: 30}}
	// The running minute (03:02) ends at now: 1.5 minutes from 03:01.
	w := MinuteSumOf(pts, from, t0.Add(time.Hour), t0.Add(150*time.Second))
	if w == nil || w.Sum != 90 || w.Minutes != 1.5 {
		t.Fatalf("running minute: %+v", w)
	}
	// A point whose minute is over counts whole; until bounds the points.
	w = MinuteSumOf(pts, from, t0.Add(2*time.Minute), t0.Add(time.Hour))
	if w == nil || w.Sum != 60 || w.Minutes != 1 {
		t.Fatalf("until the move's end: %+v", w)
	}
	if w := MinuteSumOf(pts[:1], from, t0.Add(time.Hour), t0.Add(time.Hour)); w != nil {
		t.Errorf("only a point before the move: %+v", w)
	}
}

// liveObs is a look at a live destination (300/min before the move) after
// a move of 100 that ended at end.
func liveObs(end time.Time, deleted, sent, age float64) Observation {
	base := &Traffic{Minutes: 15, SentPerMinute: 300, DeletedPerMinute: 300, AgeOfOldest: fp(1)}
	at := end.Add(10 * time.Second)
	return Observation{DestVisible: 7, DestInFlight: 3, Dests: []DestObservation{{
		Queue: "orders", Depth: sqsapi.Depth{Visible: 7, InFlight: 3}, Baseline: base,
		DeletedSinceMove: &MinuteSum{Sum: deleted, Minutes: 1}, SentSinceMove: &MinuteSum{Sum: sent, Minutes: 1},
		AgeOfOldest: fp(age), AgeAt: at, At: at, ReturnsBy: end.Add(4 * time.Second),
	}}}
}

func TestJudgeLiveDestination(t *testing.T) {
	end := t0.Add(time.Minute)
	r := Redriven{Moved: 100, DestQueue: "orders", StartedAt: t0, EndedAt: end}

	// Never drained (10 in it), yet every check holds: pass.
	j := Judge(liveObs(end, 400, 400, 2), r)
	if !j.Pass || len(j.Dests) != 1 || !j.Dests[0].Live || strings.Contains(strings.Join(j.Reasons, "\n"), "drained") {
		t.Fatalf("live, consumed: %+v", j)
	}
	// Its own by chance: 300/min × 1 min ± 3 × √300 (a steady baseline has
	// a Poisson count's spread at least) = 248–352; needed: above 352, and
	// 100 moved on top of 248 (348): 352. The old 80 % slack took 340.
	for name, c := range map[string]struct {
		o    Observation
		want string
	}{
		"deleted short":   {liveObs(end, 351, 460, 2), "not proven: orders deleted 351 over 1.0 min (NumberOfMessagesDeleted): its own 300.0/min ± 17.3 before the move reach 248–352 over 1.0 min by chance (mean ± 3σ); 100 moved: at least 352 needed"},
		"old rule's pass": {liveObs(end, 340, 460, 2), "not proven: orders deleted 340 over 1.0 min"},
		"received short":  {liveObs(end, 460, 300, 2), "orders received 300 over 1.0 min"},
		"old message":     {liveObs(end, 460, 460, 10), "orders's oldest message is 10s old, not younger than the last redriven send 10s ago: some may still be there"},
	} {
		if j := Judge(c.o, r); j.Done || j.Pass || !strings.Contains(strings.Join(j.Reasons, "\n"), c.want) {
			t.Errorf("%s: %+v, want not done with %q", name, j, c.want)
		}
	}
	// Before the return window closes, a failing message may be on its way.
	o := liveObs(end, 460, 460, 2)
	o.Dests[0].At = end.Add(3 * time.Second)
	if j := Judge(o, r); j.Pass || !strings.Contains(j.Reasons[0], "could still come back to the DLQ until") {
		t.Errorf("return window open: %+v", j)
	}
	// A delay queue (DelaySeconds 300) whose return window has closed but
	// whose latest age point (CloudWatch a few minutes late) is of a minute
	// begun while the redriven messages were still delayed: that age is
	// the queue's own young messages, not proof that the redriven left.
	o = liveObs(end, 460, 460, 2)
	o.Dests[0].Delay = 5 * time.Minute
	o.Dests[0].ReturnsBy = end.Add(5*time.Minute + 4*time.Second)
	o.Dests[0].At = end.Add(6 * time.Minute)
	o.Dests[0].AgeAt = end.Add(3 * time.Minute)
	if j := Judge(o, r); j.Pass || !strings.Contains(strings.Join(j.Reasons, "\n"), "of a minute begun after the redriven messages' delay 5m0s") {
		t.Errorf("age of a minute within the delay: %+v", j)
	}
	o.Dests[0].AgeAt = end.Add(5*time.Minute + 30*time.Second)
	if j := Judge(o, r); !j.Pass {
		t.Errorf("age of a minute begun after the delay: %+v", j)
	}
	// No CloudWatch since the move on a queue that had it before: late
	// data is awaited, never a pass without the evidence.
	o = liveObs(end, 0, 0, 0)
	o.Dests[0].DeletedSinceMove, o.Dests[0].SentSinceMove, o.Dests[0].AgeOfOldest = nil, nil, nil
	if j := Judge(o, r); j.Pass || len(j.Reasons) != 3 || !strings.Contains(j.Reasons[0], "waiting for CloudWatch's ApproximateAgeOfOldestMessage since the move") {
		t.Errorf("no data since: %+v", j)
	}
}

func TestJudgeNewFailuresOnALiveQueue(t *testing.T) {
	end := t0.Add(time.Minute)
	r := Redriven{Moved: 100, Left: 1, DestQueue: "orders", StartedAt: t0, EndedAt: end}
	o := liveObs(end, 460, 460, 2)
	o.DLQVisible, o.Peeked = 4, 4
	j := Judge(o, r)
	if !j.Pass || j.NewInDLQ != 3 || !strings.Contains(j.Reasons[0], "3 new failures since the redrive, not redriven messages (the peek saw all 4) — not this fix's verdict") {
		t.Fatalf("live, new failures: %+v", j)
	}
	// A peek that did not see the DLQ whole (a deep one: returns land
	// behind the backlog; a FIFO one: the first batch of each group) cannot
	// tell new failures from returns: not proven, never a pass.
	for _, c := range []struct {
		visible, inFlight, delayed int64
		peeked                     int
		fifo                       bool
		want                       string
	}{
		{5000, 0, 0, 1000, false, "the peek saw 1000 of them (0 in flight, 0 delayed): the 4999 more may be redriven messages coming back (SQS hands out older messages first"},
		{3, 1, 0, 3, false, "the peek saw 3 of them (1 in flight, 0 delayed)"},
		{3, 0, 2, 3, false, "(0 in flight, 2 delayed): the 4 more"},
		{40, 0, 0, 10, true, "on a FIFO DLQ a peek never gets past the first batch of each message group"},
	} {
		o := liveObs(end, 460, 460, 2)
		o.DLQVisible, o.DLQInFlight, o.DLQDelayed, o.Peeked, o.FIFO = c.visible, c.inFlight, c.delayed, c.peeked, c.fifo
		if j := Judge(o, r); j.Done || j.Pass || j.NewInDLQ != 0 || !strings.Contains(j.Reasons[0], "not proven: the DLQ holds") || !strings.Contains(j.Reasons[0], c.want) {
			t.Errorf("peek saw %d of %d: %+v", c.peeked, c.visible+c.inFlight+c.delayed, j.Reasons)
		}
	}
	// A deep DLQ whose depth is down to what was left passes by its count,
	// and says the peek did not decide.
	deep := Redriven{Moved: 100, Left: 5000, DestQueue: "orders", StartedAt: t0, EndedAt: end}
	o2 := liveObs(end, 460, 460, 2)
	o2.DLQVisible, o2.Peeked = 5000, 1000
	if j := Judge(o2, deep); !j.Pass || !strings.Contains(j.Reasons[0], "the DLQ holds 5000 (5000 left on purpose); the peek saw 1000 of them, the count decides") {
		t.Errorf("deep, at what was left: %+v", j.Reasons)
	}
	o2.DLQVisible = 5001
	if j := Judge(o2, deep); j.Pass {
		t.Errorf("deep, one more than left: %+v", j.Reasons)
	}
	// Without a peek they cannot be told from returns: not a pass.
	o.NoPeek = true
	if j := Judge(o, r); j.Pass || !strings.Contains(j.Reasons[0], "cannot be told from redriven messages coming back") {
		t.Errorf("--no-peek: %+v", j)
	}
	// On a quiet queue the DLQ must come down to what was left, as before;
	// delayed messages in it count.
	if j := Judge(Observation{DLQDelayed: 2}, r); j.Pass || !strings.Contains(j.Reasons[0], "the DLQ still holds 2 (0 visible, 0 in flight, 2 delayed), 1 expected") {
		t.Errorf("quiet, delayed: %+v", j)
	}
	quiet := Observation{DLQVisible: 4}
	if j := Judge(quiet, r); j.Pass || j.NewInDLQ != 0 || !strings.Contains(j.Reasons[0], "the DLQ still holds 4") {
		t.Errorf("quiet: %+v", j)
	}
}

func TestJudgeEachDestination(t *testing.T) {
	r := Redriven{Moved: 5, Dests: []Dest{{Queue: "orders", URL: "https://sqs/1/orders", Moved: 3}, {Queue: "pay", URL: "https://sqs/1/pay", Moved: 2}},
		Sent: []Sent{{DestMessageID: "n1", DestQueue: "https://sqs/1/orders"}, {DestMessageID: "n2", DestQueue: "https://sqs/1/pay"}}}
	o := Observation{Dests: []DestObservation{{Queue: "orders"}, {Queue: "pay", Depth: sqsapi.Depth{Visible: 1}}}}
	j := Judge(o, r)
	if j.Pass || len(j.Dests) != 2 || !j.Dests[0].Pass || j.Dests[1].Pass || j.Dests[0].Moved != 3 {
		t.Fatalf("pay not drained: %+v", j)
	}
	o.Dests[1].Visible = 0
	if j := Judge(o, r); !j.Pass || !j.Dests[1].Pass {
		t.Fatalf("both drained: %+v", j)
	}
	// A destination without a look never passes.
	if j := Judge(Observation{Dests: o.Dests[:1]}, r); j.Pass || !strings.Contains(j.Reasons[0], "pay was not looked at") {
		t.Fatalf("one look for two destinations: %+v", j)
	}
	// A return is counted against the destination its journal entry names.
	o.Returned = MatchReturned(msgs("n2"), r, t0)
	j = Judge(o, r)
	if !j.Done || j.Pass || j.Dests[0].Returned != 0 || !j.Dests[0].Pass || j.Dests[1].Returned != 1 || j.Dests[1].Verdict != Fail {
		t.Fatalf("returned to pay: %+v", j.Dests)
	}
}

func msgs(ids ...string) []sqsjson.Message {
	var out []sqsjson.Message
	for _, id := range ids {
		out = append(out, sqsjson.Message{MessageId: id, Body: id})
	}
	return out
}

// A delay queue right after the move: every redriven message is delayed,
// none visible or in flight — not drained.
func TestJudgeDelayedDestination(t *testing.T) {
	five := 5.0
	r := Redriven{Moved: 5, DestQueue: "orders"}
	o := Observation{DestDelayed: 5, Sent: &five}
	if j := Judge(o, r); j.Pass || !strings.Contains(strings.Join(j.Reasons, "\n"), "orders not drained yet: 0 visible, 0 in flight, 5 delayed") {
		t.Fatalf("delayed: %+v", j)
	}
	o.DestDelayed, o.Deleted = 0, &five
	if j := Judge(o, r); !j.Pass {
		t.Fatalf("consumed: %+v", j)
	}
}

// A destination whose failures do not come back to this DLQ: a drain
// without NumberOfMessagesDeleted proves nothing (the messages may have
// failed to the other DLQ), and a live one says what its age cannot see.
func TestJudgeFailuresElsewhere(t *testing.T) {
	five := 5.0
	r := Redriven{Moved: 5, DestQueue: "orders"}
	for _, to := range []string{"arn:aws:sqs:us-east-1:1:other-dlq"} {
		o := Observation{Dests: []DestObservation{{Queue: "orders", Sent: &five, FailuresTo: to}}}
		j := Judge(o, r)
		if j.Pass || !strings.Contains(strings.Join(j.Reasons, "\n"), "not proven: CloudWatch has no NumberOfMessagesDeleted for orders over the move, and orders drained or not cannot tell consumed from failed") {
			t.Errorf("%s, no deletions: %+v", to, j.Reasons)
		}
		o.Dests[0].Deleted = &five
		if j := Judge(o, r); !j.Pass {
			t.Errorf("%s, deleted 5: %+v", to, j.Reasons)
		}
	}
	// The same drain without deletions on a destination failing back here
	// passes with the deletions not checked (a failure would be in the
	// DLQ), and on one without a redrive policy (a failure would stay).
	for _, o := range []DestObservation{{Queue: "orders", Sent: &five, FailuresTo: "arn:dlq", ReturnsHere: true}, {Queue: "orders", Sent: &five, FailuresTo: "none"}} {
		if j := Judge(Observation{Dests: []DestObservation{o}}, r); !j.Pass || len(j.Unchecked) != 1 {
			t.Errorf("%s: %+v", o.FailuresTo, j)
		}
	}

	end := t0.Add(time.Minute)
	lr := Redriven{Moved: 100, DestQueue: "orders", StartedAt: t0, EndedAt: end}
	o := liveObs(end, 460, 460, 2)
	o.Dests[0].FailuresTo = "none"
	j := Judge(o, lr)
	if !j.Pass || len(j.Unchecked) != 1 || !strings.Contains(j.Unchecked[0], "it has no redrive policy: a failing message cycles in it until retention deletes it, and SQS leaves a message received three or more times out of ApproximateAgeOfOldestMessage on a standard queue") {
		t.Errorf("live, no redrive policy: %+v", j)
	}
}

package verify

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// A destination whose checks have not held is not proven, never failed;
// one a redriven message came back from fails. The watch's verdict reads
// the same way: a return or a redriven event's error is fail, a wait that
// ran out is not_proven.
func TestVerdictNotProvenIsNotFail(t *testing.T) {
	r := Redriven{Moved: 3, DestQueue: "orders", DestURL: "https://sqs.local/1/orders"}
	j := Judge(Observation{DestVisible: 3}, r)
	if j.Done || j.Pass || len(j.Dests) != 1 || j.Dests[0].Verdict != NotProven {
		t.Fatalf("not drained: %+v, want a destination not proven", j)
	}
	j = Judge(Observation{Returned: []Returned{{DestQueue: "orders"}}}, r)
	if !j.Done || j.Pass || j.Dests[0].Verdict != Fail {
		t.Fatalf("returned: %+v, want fail", j)
	}
	for _, c := range []struct {
		pass, done bool
		want       Verdict
	}{{true, true, Pass}, {false, true, Fail}, {false, false, NotProven}} {
		if got := verdictOf(c.pass, c.done); got != c.want {
			t.Errorf("verdictOf(%v, %v) = %s, want %s", c.pass, c.done, got, c.want)
		}
	}
	if NotProven.Word() != "not proven" || Fail.Word() != "fail" {
		t.Errorf("words %q %q", NotProven.Word(), Fail.Word())
	}
}

// The baseline's spread: a minute without a point counts as zero, so a
// bursty queue's σ is large and its bound wide.
func TestBaselineSpread(t *testing.T) {
	steady := []cwapi.Point{}
	for i := range 15 {
		steady = append(steady, cwapi.Point{Time: t0.Add(time.Duration(i) * time.Minute), Value: 100})
	}
	b := BaselineOf(steady, steady[:3], nil)
	if b.SentSpread.Mean != 100 || b.SentSpread.StdDev != 0 || b.DeletedSpread.Mean != 20 || b.DeletedSpread.StdDev != 40 {
		t.Fatalf("spread: %+v %+v", b.SentSpread, b.DeletedSpread)
	}
	// Steady: σ is a Poisson count's √100 = 10; 3 minutes: 300 ± 3 × 10 × √3.
	if got := b.SentSpread.AtMost(3); got < 351.9 || got > 352 {
		t.Errorf("AtMost(3) = %v, want 351.96", got)
	}
	// A canary of 10 on it must clear its own noise (352, not 258); a
	// move of 1000 must hold all of them on top of the least it does
	// (248 + 1000): deletions above its noise prove only some.
	for _, c := range []struct {
		moved int
		want  float64
	}{{10, 351.96}, {1000, 1248.04}} {
		if got := b.SentSpread.Need(c.moved, 3); got < c.want-0.01 || got > c.want+0.01 {
			t.Errorf("Need(%d, 3) = %v, want %v", c.moved, got, c.want)
		}
	}
}

// A live destination with DelaySeconds delivers a redriven message only
// after its delay: the return window is the move's end + the delay +
// visibility × (maxReceiveCount + 1), and a look inside it is not a pass
// (it was the end + visibility × (maxReceiveCount + 1): verify passed
// before the redriven messages were delivered). The queue is real (local
// AWS), its attributes read through the SDK.
func TestLiveReturnWindowHasTheDelay(t *testing.T) {
	ctx := context.Background()
	cfg := localaws.Config(t)
	seed := localaws.NewSeeder(cfg)
	name := localaws.UniqueName("delayed")
	_, dlqURL, err := seed.CreatePair(ctx, name, name+"-dlq", 3)
	if err != nil {
		t.Fatal(err)
	}
	c := sqsapi.New(cfg)
	dlq := &sqsapi.Queue{Name: name + "-dlq", URL: dlqURL}
	if err := sqsapi.Refresh(ctx, c, dlq); err != nil {
		t.Fatal(err)
	}
	url, err := seed.CreateQueue(ctx, name+"-d", map[string]string{"DelaySeconds": "120", "VisibilityTimeout": "5",
		"RedrivePolicy": `{"deadLetterTargetArn":"` + dlq.ARN + `","maxReceiveCount":3}`})
	if err != nil {
		t.Fatal(err)
	}
	end := time.Now().UTC()
	w := Watch{SQS: c, DLQ: dlq, Now: func() time.Time { return end.Add(time.Minute) }, noMetric: true,
		Rec: Redriven{Moved: 5, DestQueue: name + "-d", StartedAt: end.Add(-time.Second), EndedAt: end}}
	base := &Traffic{Minutes: 15, SentPerMinute: 10, DeletedPerMinute: 10}
	d, err := w.observeDest(ctx, &sqsapi.Queue{Name: name + "-d", URL: url}, base)
	if err != nil {
		t.Fatal(err)
	}
	// 2 minutes of delay + 5 s × 4 receives.
	if want := end.Add(2*time.Minute + 20*time.Second); !d.ReturnsBy.Equal(want) || d.Delay != 2*time.Minute {
		t.Fatalf("returns by %v (delay %s), want %v", d.ReturnsBy, d.Delay, want)
	}
	unmet, _, _ := judgeLive(d, Dest{Queue: name + "-d", Moved: 5}, end)
	if got := strings.Join(unmet, "\n"); !strings.Contains(got, "could still come back to the DLQ until") || !strings.Contains(got, "its delay 2m0s") {
		t.Errorf("a minute after the move, inside the delay: %q", got)
	}
}

// A function's redriven events are the latest attempt's: an earlier
// attempt's failed before the fix this verify judges.
func TestRequestIDsOfTheLatestAttempt(t *testing.T) {
	r := Redriven{Sent: []Sent{{DestMessageID: "a", Attempt: 1}, {DestMessageID: "b", Attempt: 2}, {DestMessageID: "b", Attempt: 2}, {DestMessageID: "c", Attempt: 2}, {DestMessageID: ""}}}
	if got := strings.Join(r.requestIDs(), ","); got != "b,c" {
		t.Errorf("request ids %q, want b,c", got)
	}
}

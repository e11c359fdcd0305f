package report

import (
	"strings"
	"testing"
	"time"

	"github.com/mfdlq/mfdlq/check"
	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// TestAlarmTimeAddsTheRetryWindowWhenCheckRecordedIt: first failure +
// visibility × maxReceiveCount (the soonest source's) + the alarm's
// period, against the incident's first step.
func TestAlarmTimeAddsTheRetryWindowWhenCheckRecordedIt(t *testing.T) {
	t.Parallel()
	first := time.Date(2026, 11, 29, 22, 4, 30, 0, time.UTC)
	src := func(name string, vis time.Duration, n int) *sqsapi.Queue {
		return &sqsapi.Queue{Name: name, Visibility: vis, RedrivePolicy: &sqsapi.RedrivePolicy{MaxReceiveCount: n}}
	}
	fig := (&check.Result{}).Figures(check.CheckInput{Sources: []*sqsapi.Queue{src("slow", 900*time.Second, 5), src("orders", 180*time.Second, 4), src("none", 30*time.Second, 0)}})
	if fig.VisibilityTimeoutSeconds != 180 || fig.MaxReceiveCount != 4 {
		t.Fatalf("check figures = %+v; want the soonest source's 180s × 4", fig)
	}
	chk := incident.Event{Step: incident.StepCheck, Time: time.Date(2026, 11, 30, 3, 25, 0, 0, time.UTC)}
	if err := chk.SetFigures(fig); err != nil {
		t.Fatal(err)
	}
	inc := &Incident{
		Events:         []incident.Event{{Step: incident.StepContain, Queue: "orders-dlq", Time: time.Date(2026, 11, 30, 2, 50, 0, 0, time.UTC)}, chk},
		Classification: &classify.Classification{Messages: 340, FirstSent: &first},
	}
	a, ok := inc.alarmTime()
	if !ok || !a.at.Equal(time.Date(2026, 11, 29, 22, 21, 0, 0, time.UTC)) {
		t.Fatalf("alarm at %v, %v; want 22:21 (22:04:30 + 12 min + 5 min, to the minute)", a.at, ok)
	}
	now := time.Date(2026, 11, 30, 3, 40, 0, 0, time.UTC)
	began, _ := inc.eventSpan()
	if got, want := a.sentence("orders-dlq", began, now), "an alarm on orders-dlq > 0 would have fired at about 2026-11-29 22:21 UTC, 4 h 29 min before this incident began (approximate: "; !strings.HasPrefix(got, want) {
		t.Errorf("sentence = %q\nwant       %q…", got, want)
	}
	if b := a.basis(); !strings.Contains(b, "12 min to exhaust maxReceiveCount 4 at a 3 min visibility timeout, then the alarm's 5 min period") {
		t.Errorf("basis = %q", b)
	}
	// A report written before the alarm time (the demo's, minutes after
	// the first failure) never names a time it has not reached.
	early := time.Date(2026, 11, 29, 22, 10, 0, 0, time.UTC)
	if got, want := a.sentence("orders-dlq", began, early), "an alarm on orders-dlq > 0 would have fired about 16 min after the first failure (approximate: "; !strings.HasPrefix(got, want) {
		t.Errorf("sentence before the alarm time = %q\nwant       %q…", got, want)
	}
}

// TestFirstFailureFallsBackOnTheSample: without classify, the earliest
// SentTimestamp of inspect's sample, said to be a sample's; none at all
// gives no alarm time rather than a wrong one.
func TestFirstFailureFallsBackOnTheSample(t *testing.T) {
	t.Parallel()
	msg := func(ms string) sqsjson.Message {
		return sqsjson.Message{MessageId: ms, Attributes: map[string]string{"SentTimestamp": ms}}
	}
	inc := &Incident{Samples: []sqsjson.Message{msg("1764454000000"), msg("1764453840000"), {MessageId: "no-attrs"}}}
	at, from := inc.firstFailure()
	if !at.Equal(time.UnixMilli(1764453840000).UTC()) || !strings.Contains(from, "3 messages inspect sampled; older ones may be unsampled") {
		t.Errorf("first failure %v (%s)", at, from)
	}
	if _, ok := (&Incident{}).alarmTime(); ok {
		t.Errorf("an alarm time without any SentTimestamp")
	}
}

package report

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mfdlq/mfdlq/health"
	"github.com/mfdlq/mfdlq/incident"
)

// The timeline shows redrive --when-ok's wait, the alarm turning OK, the
// pause and its end, the watch's blind spell, in time order among the steps, alarm names encoded.
func TestTimelineShowsTheWaitAndThePauses(t *testing.T) {
	t.Parallel()
	ws, err := incident.Open(filepath.Join(t.TempDir(), "orders-dlq-20261202T0300Z"))
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC)
	name := "gateway|5xx*"
	j := health.OpenWaits(ws)
	opts := health.Options{Alarms: []string{name}, For: 2 * time.Minute, GiveUp: 6 * time.Hour}
	alarm := func(at time.Time, state string) health.Status {
		return health.Status{Time: at, Alarms: []health.AlarmStatus{{Alarm: health.Alarm{Name: name, State: state}}}}
	}
	for _, err := range []error{
		j.Start(health.KindBeforeMove, opts, "r1", t0, t0),
		j.Observe(alarm(t0, health.StateAlarm)),
		j.Observe(alarm(t0.Add(3*time.Minute), health.StateOK)),
		j.End(health.OutcomeOK, "", t0.Add(5*time.Minute)),
		j.Blind(t0.Add(5*time.Minute+10*time.Second), errors.New("read the alarms: <b>reset</b>")),
		j.Seeing(t0.Add(5*time.Minute+25*time.Second), t0.Add(5*time.Minute+10*time.Second)),
		j.Pause(health.Break{Time: t0.Add(7 * time.Minute), Alarm: name, State: health.StateAlarm}),
		j.Start(health.KindPause, opts, "r1", t0.Add(7*time.Minute), t0.Add(7*time.Minute)),
		j.End(health.OutcomeGaveUp, "", t0.Add(6*time.Hour+7*time.Minute)),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := ws.Append(incident.Event{Step: incident.StepContain, Time: t0.Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	inc, err := LoadIncident(ws)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	inc.writeTimeline(&b)
	got := b.String()
	want := []string{
		"| 2026-12-02 03:00:00 | redrive --when-ok: waiting for gateway\\|5xx\\* to be OK for 2m0s (gives up after 6h0m0s) |",
		"| 2026-12-02 03:03:00 | redrive --when-ok: gateway\\|5xx\\* is OK |",
		"| 2026-12-02 03:05:00 | redrive --when-ok: every alarm OK for long enough: the move goes on |",
		"| 2026-12-02 03:05:10 | redrive --when-ok: the alarms could not be read (read the alarms: \\<b\\>reset\\</b\\>): the move went on |",
		"| 2026-12-02 03:05:25 | redrive --when-ok: the alarms were read again |",
		"| 2026-12-02 03:07:00 | redrive --when-ok: gateway\\|5xx\\* is ALARM: the move stopped sending |",
		"| 2026-12-02 03:07:00 | redrive --when-ok: paused, waiting for gateway\\|5xx\\* to be OK for 2m0s (gives up after 6h0m0s) |",
		"| 2026-12-02 09:07:00 | redrive --when-ok: gave up waiting; what was not moved stays in the DLQ |",
	}
	at := strings.Index(got, "contain:")
	for _, w := range want {
		i := strings.Index(got, w)
		if i < at {
			t.Fatalf("timeline lacks, or has out of order:\n%s\ngot:\n%s", w, got)
		}
		at = i
	}
	if strings.Contains(got, "is ALARM |") {
		t.Errorf("a plain state change during the wait is in the timeline:\n%s", got)
	}
}

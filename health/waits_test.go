package health

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mfdlq/mfdlq/incident"
)

// A wait killed mid-way is found again by the same alarms (any order),
// from its first start, with the moments it saw the alarms out of OK; a
// wait that ended is not; the file is 0600.
func TestWaitsResume(t *testing.T) {
	ws, err := incident.Open(filepath.Join(t.TempDir(), "orders-dlq-20261202T0300Z"))
	if err != nil {
		t.Fatal(err)
	}
	j := OpenWaits(ws)
	opts := Options{Alarms: []string{"gateway-5xx", "db-cpu"}, For: 2 * time.Minute, GiveUp: time.Hour}
	must(t, j.Start(KindBeforeMove, opts, "r1", t0, t0))
	st := Status{Time: t0, Alarms: []AlarmStatus{{Alarm: Alarm{Name: "gateway-5xx", State: StateAlarm}}, {Alarm: Alarm{Name: "db-cpu", State: StateOK}}}}
	must(t, j.Observe(st))
	must(t, j.Observe(st)) // unchanged: nothing written
	st.Time, st.Alarms[0].State = t0.Add(3*time.Minute), StateOK
	must(t, j.Observe(st))

	recs, err := ReadWaits(ws)
	if err != nil || len(recs) != 4 {
		t.Fatalf("%d records (%v), want wait + 3 states", len(recs), err)
	}
	u, ok := Resumable(recs, []string{"db-cpu", "gateway-5xx"})
	if !ok || !u.Started.Equal(t0) || !u.Floors["gateway-5xx"].Equal(t0.Add(3*time.Minute)) || !u.Floors["db-cpu"].IsZero() {
		t.Fatalf("resumable %+v %v", u, ok)
	}
	if _, ok := Resumable(recs, []string{"gateway-5xx"}); ok {
		t.Fatal("a wait on other alarms resumed")
	}
	// The rerun resumes: its record says so and keeps the first start.
	must(t, j.Start(KindBeforeMove, opts, "r2", u.Started, t0.Add(10*time.Minute)))
	must(t, j.End(OutcomeOK, "", t0.Add(12*time.Minute)))
	recs, _ = ReadWaits(ws)
	if recs[4].Type != MilestoneResume || !recs[4].Started.Equal(t0) {
		t.Fatalf("resume record %+v", recs[4])
	}
	if _, ok := Resumable(recs, opts.Alarms); ok {
		t.Fatal("an ended wait resumed")
	}
	fi, err := os.Lstat(ws.Path(incident.WaitsFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("waits file mode %v %v", fi.Mode(), err)
	}
}

// Alarm names are anyone's text: every line for a terminal sanitises
// them.
func TestHostileNamesAreSanitised(t *testing.T) {
	evil := "gw\x1b]0;pwned\x07\u202e"
	st := Status{Time: t0, GiveUpAt: t0.Add(time.Hour), Left: time.Minute,
		Alarms: []AlarmStatus{{Alarm: Alarm{Name: evil, State: StateAlarm, Since: t0}, Left: time.Minute}}}
	for what, s := range map[string]string{
		"status":    st.Text(),
		"not found": (&NotFoundError{Names: []string{evil}}).Error(),
		"give up":   (&GiveUpError{Alarms: st.Alarms}).Error(),
		"break":     Break{Alarm: evil, State: StateAlarm}.Reason(),
	} {
		if strings.ContainsAny(s, "\x1b\x07\u202e") {
			t.Errorf("%s: %q holds a control character", what, s)
		}
		if !strings.Contains(s, "gw") {
			t.Errorf("%s: %q does not name the alarm", what, s)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// An OK without data is out of OK for a resumed wait: the killed run's
// sighting of it floors the streak, and so does the first OK with data
// after it.
func TestWaitsResumeAfterOKWithoutData(t *testing.T) {
	ws, err := incident.Open(filepath.Join(t.TempDir(), "orders-dlq-20261202T0300Z"))
	if err != nil {
		t.Fatal(err)
	}
	j := OpenWaits(ws)
	must(t, j.Start(KindBeforeMove, Options{Alarms: []string{"gw"}, For: 2 * time.Minute, GiveUp: time.Hour}, "r1", t0, t0))
	st := Status{Time: t0, Alarms: []AlarmStatus{{Alarm: Alarm{Name: "gw", State: StateOK}, NoData: "TreatMissingData notBreaching …"}}}
	must(t, j.Observe(st))
	st.Time, st.Alarms[0].NoData = t0.Add(time.Minute), ""
	must(t, j.Observe(st)) // the same state, now with data: a line of its own
	recs, err := ReadWaits(ws)
	if err != nil || len(recs) != 3 || recs[1].NoData == "" || recs[2].NoData != "" {
		t.Fatalf("records %+v (%v): want the wait, OK without data, OK", recs, err)
	}
	u, ok := Resumable(recs, []string{"gw"})
	if !ok || !u.Floors["gw"].Equal(t0.Add(time.Minute)) {
		t.Fatalf("resumable %+v %v: want the floor at the first OK with data", u, ok)
	}
}

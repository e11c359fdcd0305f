package cmd

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mfdlq/mfdlq/logsearch"
)

// TestLogsFoldsRepeatedTrace: a trace logged at each of three attempts
// (request IDs and times differ) shows once, with the count of the others;
// piped, the signature is classify's key as it is.
func TestLogsFoldsRepeatedTrace(t *testing.T) {
	var lines []string
	for _, req := range []string{"0b1e", "7c2f", "9a41"} {
		lines = append(lines, "START RequestId: "+req+" Version: $LATEST",
			"Traceback (most recent call last):", `  File "/var/task/orders.py", line 12, in parse`,
			"UnsupportedVersionError: version 2", "END RequestId: "+req)
	}
	lines = append(lines, "REPORT done")
	d, out, _ := testDeps(t, false)
	o := &logsOptions{deps: d}
	rep := &logsearch.Result{Searched: 1, Found: 1, Groups: []string{"g"}, Messages: []logsearch.Record{{MessageID: "m1", Found: true,
		Lines: lines, Exception: "UnsupportedVersionError: version 2", Signature: "UnsupportedVersionError: version <n>"}}}
	if err := o.render(rep); err != nil {
		t.Fatal(err)
	}
	want := `m1  
  START RequestId: 0b1e Version: $LATEST
  Traceback (most recent call last):
    File "/var/task/orders.py", line 12, in parse
  UnsupportedVersionError: version 2
  END RequestId: 0b1e
  … the 5 lines above again 2 more times (only ids, times and numbers differ)
  REPORT done
  exception: UnsupportedVersionError: version 2
  signature: UnsupportedVersionError: version <n>

`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("logs (-want +got):\n%s", diff)
	}
}

// TestLogsNotFoundTimes: a terminal reads the window of a message not found
// in UTC with its date; piped, RFC 3339 as before.
func TestLogsNotFoundTimes(t *testing.T) {
	from := time.Date(2026, 11, 29, 22, 4, 0, 0, time.UTC)
	rep := &logsearch.Result{Searched: 1, Groups: []string{"g"}, Messages: []logsearch.Record{{MessageID: "m1",
		Window: logsearch.Window{From: from, To: from.Add(time.Hour)}}}}
	for tty, want := range map[bool]string{
		true:  "m1  not found in groups g between 2026-11-29 22:04:00 UTC and 2026-11-29 23:04:00 UTC\n",
		false: "m1  not found in groups g between 2026-11-29T22:04:00Z and 2026-11-29T23:04:00Z\n",
	} {
		d, out, _ := testDeps(t, tty)
		d.IO.Color = false
		if err := (&logsOptions{deps: d}).render(rep); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Errorf("tty %v: %q, want %q", tty, out.String(), want)
		}
	}
}

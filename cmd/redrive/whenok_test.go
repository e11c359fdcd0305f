package redrive

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/health"
)

func whenOKDeps(tty bool, output string) (*cmdutil.Deps, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	return &cmdutil.Deps{IO: &cmdutil.IOStreams{Out: &out, ErrOut: &errOut, ErrTTY: tty}, Global: &cmdutil.GlobalOptions{Output: output}, Now: time.Now}, &out, &errOut
}

func waitStatus(at time.Time, state string) health.Status {
	t0 := time.Date(2026, 12, 2, 2, 41, 7, 0, time.UTC)
	a := health.AlarmStatus{Alarm: health.Alarm{Name: "gateway-5xx\x1b[2J", Type: health.TypeMetric, State: state, Since: t0}, Left: 2 * time.Minute}
	return health.Status{Time: at, Waited: at.Sub(t0), GiveUpAt: t0.Add(6 * time.Hour), Left: 2 * time.Minute, Alarms: []health.AlarmStatus{a}}
}

// On a terminal one line rewritten in place, names sanitised; piped, JSON
// lines on stderr only when something changed or a minute passed; with
// --output json, every read as a JSON line on stdout.
func TestWhenOKStatusShapes(t *testing.T) {
	at := time.Date(2026, 12, 2, 2, 50, 0, 0, time.UTC)
	d, _, errOut := whenOKDeps(true, "table")
	s := &whenOKStatus{d: d}
	s.report(waitStatus(at, health.StateAlarm))
	s.report(waitStatus(at.Add(15*time.Second), health.StateAlarm))
	s.finish()
	got := errOut.String()
	if strings.Count(got, "\r\x1b[K") != 2 || strings.Contains(got, "\x1b[2J") || !strings.HasSuffix(got, "\n") ||
		!strings.Contains(got, `"gateway-5xx\x1b[2J" ALARM since 02:41:07 UTC`) {
		t.Fatalf("terminal: %q", got)
	}

	d, out, errOut := whenOKDeps(false, "table")
	s = &whenOKStatus{d: d}
	for i := range 5 { // 15 s apart, unchanged: one line
		s.report(waitStatus(at.Add(time.Duration(i)*15*time.Second), health.StateAlarm))
	}
	s.report(waitStatus(at.Add(80*time.Second), health.StateAlarm)) // a minute on
	s.report(waitStatus(at.Add(90*time.Second), health.StateOK))    // changed
	lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
	if len(lines) != 3 || out.Len() != 0 {
		t.Fatalf("piped: %d lines on stderr, %d bytes on stdout:\n%s", len(lines), out.Len(), errOut)
	}
	var l health.WaitLine
	if err := json.Unmarshal([]byte(lines[2]), &l); err != nil || l.Type != "waiting" || l.Alarms[0].State != "OK" {
		t.Fatalf("piped line %q: %v", lines[2], err)
	}

	d, out, errOut = whenOKDeps(false, "json")
	s = &whenOKStatus{d: d}
	s.report(waitStatus(at, health.StateAlarm))
	s.report(waitStatus(at.Add(15*time.Second), health.StateAlarm))
	if n := strings.Count(out.String(), `"type":"waiting"`); n != 2 || errOut.Len() != 0 {
		t.Fatalf("json: %d lines on stdout, stderr %q", n, errOut)
	}
}

func TestWhenOKExitCodes(t *testing.T) {
	for _, tc := range []struct {
		err  error
		code int
	}{
		{&health.NotFoundError{Names: []string{"x"}}, cmdutil.ExitNotFound},
		{&health.DeniedError{}, cmdutil.ExitAuth},
		{&health.GiveUpError{}, cmdutil.ExitCheckFailed},
	} {
		if code, ok := whenOKExit(tc.err); !ok || code != tc.code {
			t.Errorf("%T: %d %v, want %d", tc.err, code, ok, tc.code)
		}
		// As the command returns it, wrapped or not, to the root's exit status.
		if code := cmdutil.ExitCode(whenOKExitError(fmt.Errorf("redrive: %w", tc.err)), false); code != tc.code {
			t.Errorf("%T returned by the command: exit %d, want %d", tc.err, code, tc.code)
		}
	}
}

// TestWhenOKJSONLinesEscapeInvisibles: an alarm named with a bidi
// override and a zero-width space reaches no stream raw — not the piped
// status lines on stderr, not --output json's lines on stdout, not the
// error line — escaped by JSON's own \u, so the name still decodes
// exactly (issue 48: raw on piped stderr, escaped on a terminal).
func TestWhenOKJSONLinesEscapeInvisibles(t *testing.T) {
	at := time.Date(2026, 12, 2, 2, 50, 0, 0, time.UTC)
	st := waitStatus(at, health.StateAlarm)
	name := "gateway\u202e5xx\u200b\u2066"
	st.Alarms[0].Name = name
	for _, output := range []string{"table", "json"} {
		d, out, errOut := whenOKDeps(false, output)
		(&whenOKStatus{d: d}).report(st)
		cmdutil.ReportError(d, nil, errors.New("alarm "+name+" stuck"), 3, "")
		got := out.String() + errOut.String()
		if strings.ContainsAny(got, "\u202e\u200b\u2066") {
			t.Errorf("--output %s: raw invisibles in %q", output, got)
		}
		line := strings.SplitN(strings.TrimSpace(out.String()+errOut.String()), "\n", 2)[0]
		var l health.WaitLine
		if err := json.Unmarshal([]byte(line), &l); err != nil || len(l.Alarms) != 1 || l.Alarms[0].Name != name {
			t.Errorf("--output %s: %q does not decode to the name: %v", output, line, err)
		}
	}
}

package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/mfdlq/mfdlq/health"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/redrive/lease"
	"github.com/mfdlq/mfdlq/untrusted"
)

// whenOKStatus shows redrive --when-ok's wait: one status line rewritten
// in place on a terminal's stderr; JSON lines of type "waiting" on stdout
// with --output json; piped without it, the same JSON lines on stderr,
// one when something changed and at least one a minute (a log a person
// can tail).
type whenOKStatus struct {
	d     *Deps
	mu    sync.Mutex
	shown time.Time
	key   string
	drawn bool
}

// whenOKQuiet is how often a piped wait writes a line while nothing
// changes.
const whenOKQuiet = time.Minute

func (s *whenOKStatus) report(st health.Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.d
	switch {
	case d.jsonOutput():
		_ = d.printJSONLine(st.Line())
	case d.Global.Quiet:
	case d.IO.ErrTTY:
		fmt.Fprintf(d.IO.ErrOut, "\r\x1b[K%s", untrusted.Terminal(st.Text()))
		s.drawn = true
		if st.Ready {
			s.endLine()
		}
	default:
		key := statusKey(st)
		if key == s.key && st.Time.Sub(s.shown) < whenOKQuiet && !st.Ready {
			return
		}
		s.key, s.shown = key, st.Time
		writeJSONLine(d.IO.ErrOut, st.Line())
	}
}

// finish ends the status line before other lines follow (a pause's
// message, the summary, an error).
func (s *whenOKStatus) finish() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.endLine()
}

func (s *whenOKStatus) endLine() {
	if s.drawn {
		fmt.Fprintln(s.d.IO.ErrOut)
		s.drawn = false
	}
}

// statusKey is what a piped status line is written again for: the
// alarms' states and since when, a failing read, readiness.
func statusKey(st health.Status) string {
	var b strings.Builder
	for _, a := range st.Alarms {
		fmt.Fprintf(&b, "%s=%s@%d;", a.Name, a.State, a.Since.Unix())
	}
	fmt.Fprintf(&b, "err=%t ready=%t", st.Error != "", st.Ready)
	return b.String()
}

// writeJSONLine writes v as one JSON line, escaped by untrusted.JSON as
// every JSON line mfdlq writes: an alarm's name is the operator's account's
// data, and a piped stderr is often a terminal's scrollback after all.
func writeJSONLine(w io.Writer, v any) {
	if b, err := json.Marshal(v); err == nil {
		fmt.Fprintln(w, string(untrusted.JSON(b)))
	}
}

// whenOKPlanLines are the plan's lines of --when-ok: each alarm with its
// type, its state now and since when, and what the wait needs.
func whenOKPlanLines(alarms []health.AlarmStatus, opts health.Options, now time.Time) []string {
	lines := []string{fmt.Sprintf("when-ok: the move starts once every alarm below has been OK for %s without a break, reading them every %s (every %s during the move: an alarm leaving OK pauses it); gives up after %s with nothing moved",
		opts.For, opts.PollWait, opts.PollWatch, opts.GiveUp)}
	for _, a := range alarms {
		lines = append(lines, fmt.Sprintf("when-ok: %s (%s alarm) %s since %s — %s", health.Quote(a.Name), a.Type, a.State,
			a.Since.UTC().Format("2006-01-02 15:04:05 UTC"), leftText(a, now)))
	}
	return lines
}

func leftText(a health.AlarmStatus, now time.Time) string {
	switch {
	case a.State == health.StateOK && a.NoData != "":
		return fmt.Sprintf("OK but not counted: %s; needs %s of OK with data", a.NoData, a.Left)
	case a.State != health.StateOK:
		return fmt.Sprintf("needs %s of OK", a.Left)
	case a.Left == 0:
		return fmt.Sprintf("OK for %s already", now.Sub(a.OKSince).Round(time.Second))
	}
	return fmt.Sprintf("%s left", a.Left.Round(time.Second))
}

// whenOK reads the alarms for the plan (their state now and since when:
// a missing one exits 5, an unreadable one 4, before the question) and
// sets up the redrive's wait and watch on them.
func (o *redriveOptions) whenOK(ctx context.Context, env *redrive.Env, ws *incident.Workspace) (finish func(), err error) {
	d := o.deps
	if d.CloudWatch == nil {
		return nil, errors.New("--when-ok: no CloudWatch client")
	}
	cw, err := d.CloudWatch(ctx)
	if err != nil {
		return nil, err
	}
	gate := health.New(cw, health.Options{Alarms: o.WhenOK, For: o.For, GiveUp: o.GiveUp}, nil)
	alarms, err := gate.Check(ctx)
	if err != nil {
		return nil, fmt.Errorf("--when-ok: %w", err)
	}
	for _, l := range whenOKPlanLines(alarms, gate.Options(), d.Now()) {
		d.infof("plan: %s", l)
	}
	status := &whenOKStatus{d: d}
	env.WhenOK = &health.Session{Gate: gate, Waits: health.OpenWaits(ws), Report: status.report, Waiting: lease.WaitingOn(o.WhenOK),
		Info: func(format string, args ...any) {
			status.finish()
			d.infof(format, args...)
		}}
	return status.finish, nil
}

// whenOKExit maps the wait's errors to exit statuses: an alarm that does
// not exist 5, a read the role may not make 4, --give-up reached 3.
func whenOKExit(err error) (int, bool) {
	var nf *health.NotFoundError
	var de *health.DeniedError
	var gu *health.GiveUpError
	switch {
	case errors.As(err, &nf):
		return ExitNotFound, true
	case errors.As(err, &de):
		return ExitAuth, true
	case errors.As(err, &gu):
		return ExitCheckFailed, true
	}
	return 0, false
}

func isWhenOKError(err error) bool {
	_, ok := whenOKExit(err)
	return ok
}

package redrive

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/health"
	"github.com/mfdlq/mfdlq/incident"
	redrivestep "github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/untrusted"
)

// whenOKStatus shows redrive --when-ok's wait: one status line rewritten
// in place on a terminal's stderr; JSON lines of type "waiting" on stdout
// with --output json; piped without it, the same JSON lines on stderr,
// one when something changed and at least one a minute (a log a person
// can tail).
type whenOKStatus struct {
	d     *cmdutil.Deps
	mu    sync.Mutex
	log   redrivestep.WaitLog
	drawn bool
}

func (s *whenOKStatus) report(st health.Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.d
	switch {
	case d.JSONOutput():
		_ = d.PrintJSONLine(st.Line())
	case d.Global.Quiet:
	case d.IO.ErrTTY:
		fmt.Fprintf(d.IO.ErrOut, "\r\x1b[K%s", untrusted.Terminal(st.Text()))
		s.drawn = true
		if st.Ready {
			s.endLine()
		}
	case s.log.Due(st):
		_ = cmdutil.WriteJSONLine(d.IO.ErrOut, st.Line())
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

// whenOK reads the alarms for the plan (redrivestep.PlanWhenOK: a missing one
// exits 5, an unreadable one 4, before the question), prints the plan's
// lines, and gives the redrive's wait and watch the status line.
func (o *RedriveOptions) whenOK(ctx context.Context, env *redrivestep.Env, ws *incident.Workspace) (finish func(), err error) {
	d := o.deps
	if d.CloudWatch == nil {
		return nil, errors.New("--when-ok: no CloudWatch client")
	}
	cw, err := d.CloudWatch(ctx)
	if err != nil {
		return nil, err
	}
	s, lines, err := redrivestep.PlanWhenOK(ctx, cw, ws, o.Request, d.Now())
	if err != nil {
		return nil, err
	}
	for _, l := range lines {
		d.Infof("plan: %s", l)
	}
	status := &whenOKStatus{d: d}
	s.Report = status.report
	s.Info = func(format string, args ...any) {
		status.finish()
		d.Infof(format, args...)
	}
	env.WhenOK = s
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
		return cmdutil.ExitNotFound, true
	case errors.As(err, &de):
		return cmdutil.ExitAuth, true
	case errors.As(err, &gu):
		return cmdutil.ExitCheckFailed, true
	}
	return 0, false
}

// whenOKExitError gives the wait's errors their exit status (whenOKExit)
// as the command returns them; an error that carries a status keeps it.
func whenOKExitError(err error) error {
	if _, ok := err.(*cmdutil.ExitError); ok {
		return err
	}
	if code, ok := whenOKExit(err); ok {
		return &cmdutil.ExitError{Code: code, Err: err}
	}
	return err
}

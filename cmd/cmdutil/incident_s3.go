package cmdutil

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/incidents3"
	"github.com/mfdlq/mfdlq/untrusted"
)

// s3Incident is --incident s3://bucket/prefix/ID (or MFDLQ_INCIDENT so):
// the step works in a local working copy, pulled at its first use and
// pushed back when the command ends (incidents3).
type s3Incident struct {
	loc  incidents3.Location
	dir  string
	ctx  context.Context
	copy *incidents3.Copy // nil until pulled
	err  error            // the pull's, said when the command ends
}

// pullTimeout bounds a pull made where no context reaches (IncidentDir).
const pullTimeout = 2 * time.Minute

// IncidentURL is the --incident or MFDLQ_INCIDENT value when it names S3.
func (d *Deps) IncidentURL() (string, bool) {
	v := d.Global.Incident
	if v == "" {
		v = os.Getenv("MFDLQ_INCIDENT")
	}
	return v, incidents3.IsURL(v)
}

// s3IncidentDir is the working copy's directory of an S3 incident: a
// usage error, before any AWS call, when the URL is not one.
func (d *Deps) s3IncidentDir(raw string) (string, error) {
	if d.s3 != nil {
		return d.s3.dir, nil
	}
	loc, err := incidents3.Parse(raw)
	if err != nil {
		return "", UsageErrorf("%v", err)
	}
	dir, err := incidents3.WorkDir(loc)
	if err != nil {
		return "", UsageErrorf("%v", err)
	}
	ctx := d.runCtx
	if ctx == nil {
		ctx = context.Background()
	}
	d.s3 = &s3Incident{loc: loc, dir: dir, ctx: ctx}
	return dir, nil
}

// checkS3Incident is CheckIncident for an S3 incident: the URL and the
// working copy's directory, before any AWS call.
func (d *Deps) checkS3Incident(raw string) error {
	dir, err := d.s3IncidentDir(raw)
	if err != nil {
		return err
	}
	return IncidentError(incident.Check(dir))
}

// s3IncidentPulled is IncidentDir's choice when --incident names S3: the
// working copy, pulled at this first use. ok is false for a local
// incident.
func (d *Deps) s3IncidentPulled() (dir string, ok bool, err error) {
	raw, ok := d.IncidentURL()
	if !ok {
		return "", false, nil
	}
	if dir, err = d.s3IncidentDir(raw); err != nil {
		return "", true, err
	}
	return dir, true, d.pullS3Incident()
}

// pullS3Incident brings the S3 incident into its working copy, once per
// command. Its error is kept and said when the command ends, besides
// returned: IncidentDir's callers cannot return it.
func (d *Deps) pullS3Incident() error {
	s := d.s3
	if s == nil || s.copy != nil || s.err != nil {
		return s.errOrNil()
	}
	ctx, cancel := context.WithTimeout(s.ctx, pullTimeout)
	defer cancel()
	c, err := d.S3Client(ctx)
	if err == nil {
		var skipped []incidents3.Skipped
		s.copy, skipped, err = incidents3.Open(ctx, c, s.loc, s.dir)
		for _, sk := range skipped {
			d.Warnf("%s: %s left in S3: %s", s.loc, untrusted.Cell(sk.Name), sk.Why)
		}
	}
	if err != nil {
		s.err = IncidentError(err)
		return s.err
	}
	if s.copy.New {
		d.Infof("incident: %s is new: S3 holds nothing under it yet (check the ID if you meant to continue one: mfdlq ls --incidents --incident %s); working copy %s", s.loc, s.loc.Prefix, s.dir)
		return nil
	}
	d.Infof("incident: %s (working copy %s)", s.loc, s.dir)
	return nil
}

func (s *s3Incident) errOrNil() error {
	if s == nil {
		return nil
	}
	return s.err
}

// FinishS3Incident pushes the working copy back when the command ends,
// whatever its outcome (a failed step's events count too), on a context
// a Ctrl-C does not cancel: the events written must reach S3. It returns
// err joined with the pull's or the push's error.
func (d *Deps) FinishS3Incident(ctx context.Context, err error) error {
	s := d.s3
	if s == nil {
		return err
	}
	if s.copy == nil {
		if s.err != nil {
			return s.err // the step's own error follows from it
		}
		return err
	}
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), pullTimeout)
	defer cancel()
	res, perr := s.copy.Push(pctx)
	if len(res.Files) > 0 {
		d.Infof("incident: wrote %d files back to %s", len(res.Files), s.loc)
	}
	return errors.Join(err, perr)
}

package cmdutil

import (
	"context"
	"errors"
	"os"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// CheckIncident validates the incident directory a command about queueRef
// will write into, before any AWS call: a symlinked, foreign, shared or
// non-directory --incident is a usage error (exit 2) and nothing changes.
// The directory's default name needs only the queue's name, which a name,
// URL or ARN gives without asking AWS. The choice is not said here: the
// step says it when it opens the directory, after its own checks.
func (d *Deps) CheckIncident(queueRef string) error {
	if raw, ok := d.IncidentURL(); ok {
		return d.checkS3Incident(raw)
	}
	dir, _, err := incident.Choose(d.Global.Incident, os.Getenv, sqsapi.NameOf(queueRef), d.Now())
	if err != nil {
		return IncidentError(err)
	}
	return IncidentError(incident.Check(dir))
}

// IncidentError turns an unsafe incident directory, or no per-user place
// for one, into a usage error.
func IncidentError(err error) error {
	var unsafe *incident.UnsafeDirError
	switch {
	case errors.As(err, &unsafe):
		return UsageErrorf("%v", unsafe)
	case errors.Is(err, incident.ErrNoStateDir):
		return UsageErrorf("%v", err)
	}
	return err
}

// Incidents is the incident directory chosen for each queue so far in this
// process (a view's steps say where each queue's files went).
func (d *Deps) Incidents() map[string]string { return d.incidents }

// ForgetIncidents drops the choices made so far: a copy of the Deps that
// runs another command (a view's step) chooses its own.
func (d *Deps) ForgetIncidents() { d.incidents = nil }

// SetContext is the running command's context, which a pull of an S3
// incident made where no context reaches (IncidentDir) is bound to.
func (d *Deps) SetContext(ctx context.Context) { d.runCtx = ctx }

package redrive

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mfdlq/mfdlq/archive"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/redrive/place"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// Replay is an export made ready to stand in for a DLQ (--from-file):
// where its lines go, the undo of a transform's originals, and the file as
// the source the mover reads.
type Replay struct {
	Routes *FileRoutes
	Source *archive.Source
	Undo   *UndoFilter
	// Queue stands in for the DLQ: the file, in the operator's own account
	// and region, never a destination's (a cross-account line is then seen).
	Queue *sqsapi.Queue
	// Workspace is the incident the replay is recorded in, named for the
	// file (ReplayName).
	Workspace *incident.Workspace
}

// PrepareReplay reads an export to move it: the operator's account (the
// file's recorded sources are data, and never choose another account or
// region on their own), each line's destination (--to, else its recorded
// source), what earlier runs of the incident delivered, and the originals
// an undo keeps back. workspace opens the incident by name.
func PrepareReplay(ctx context.Context, env *Env, req Request, f *archive.File, workspace func(name string) (*incident.Workspace, error)) (*Replay, error) {
	msgs, err := f.Messages()
	if err != nil {
		return nil, err
	}
	home, err := OperatorHome(ctx, env)
	if err != nil {
		return nil, err
	}
	routes, err := FileDests(ctx, env, req, msgs.Next, home)
	if err != nil {
		return nil, err
	}
	r := &Replay{Routes: routes}
	if r.Workspace, err = workspace(ReplayName(req.FromFile)); err != nil {
		return nil, err
	}
	delivered, err := DeliveredTo(r.Workspace, routes.Dests)
	if err != nil {
		return nil, err
	}
	if r.Undo, err = NewUndoFilter(f, req.FromFile); err != nil {
		return nil, err
	}
	if r.Source, err = archive.NewSource(f, env.SQS, r.Undo.Skip(delivered)); err != nil {
		return nil, fmt.Errorf("--from-file %s: %w", req.FromFile, err)
	}
	r.Queue = &sqsapi.Queue{Name: ReplayName(req.FromFile), URL: r.Source.URL, Account: home.Account, Region: home.Region, FIFO: routes.Dests[0].FIFO}
	return r, nil
}

// Lines say where the file's lines go, for the plan (place.Lines).
func (r *Replay) Lines() []string { return place.Lines(r.Routes.Dests, r.Routes.Lines) }

// ReplayName names the incident of a file: orders-dlq.jsonl.gz → orders-dlq.
func ReplayName(ref string) string {
	base := filepath.Base(strings.TrimPrefix(ref, "s3://"))
	for _, ext := range []string{".gz", ".jsonl", ".json", ".ndjson"} {
		base = strings.TrimSuffix(base, ext)
	}
	if base == "" || base == "." {
		return "export"
	}
	return base
}

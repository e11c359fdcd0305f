package verify

import (
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/redrive/journal"

	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/mfdlq/mfdlq/incident"
	verifystep "github.com/mfdlq/mfdlq/verify"

	"github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// redriven reads what the incident recorded of the redrive: the latest
// redrive event's figures and the journal's sent entries.
func (o *VerifyOptions) redriven(dlq *sqsapi.Queue) (verifystep.Redriven, error) {
	d := o.deps
	ws, err := d.Workspace(dlq.Name)
	if err != nil {
		return verifystep.Redriven{}, err
	}
	entries, err := journal.ReadEntries(ws.Path(incident.JournalFile))
	if err != nil {
		return verifystep.Redriven{}, fmt.Errorf("verify %s: %w", dlq.Name, err)
	}
	ev, ok, err := ws.Latest("redrive")
	if err != nil {
		return verifystep.Redriven{}, err
	}
	if !ok && len(entries) == 0 {
		return verifystep.Redriven{}, cmdutil.UsageErrorf("nothing to verify: incident %s records no redrive of %s; run mfdlq redrive first, or pass the redrive's --incident", ws.Dir, dlq.Name)
	}
	rec := redrivenFrom(redrive.FiguresOf(ev), entries)
	// A big move's journal is compacted: its completed sends are digests.
	if l, err := journal.ReadLedger(ws.Path(incident.JournalFile), false); err == nil && l.Compacted() {
		rec.Compacted = l
		if rec.Moved == 0 {
			rec.Moved = compactedMoved(l)
		}
	}
	if o.Left >= 0 {
		rec.Left = o.Left
	}
	if rec.DestQueue == "" && rec.DestURL == "" && len(rec.Dests) == 0 {
		return rec, cmdutil.UsageErrorf("nothing to verify: the redrive recorded no destination queue in %s", ws.Dir)
	}
	return rec, nil
}

// redrivenFrom builds the record from the event's figures, falling back on
// the journal for what the event lacks (an interrupted redrive).
func redrivenFrom(fig redrive.Figures, entries []journal.Entry) verifystep.Redriven {
	rec := verifystep.Redriven{
		// A shared DLQ's messages without a source attribute stay in it
		// (Sourceless), as do the skipped and failed.
		Moved: fig.Moved, Left: fig.Skipped + fig.FilterErrors + fig.Failed + fig.Sourceless,
		DestQueue: fig.DestQueue, DestURL: fig.DestURL, Native: fig.Native,
	}
	rec.Target = redrive.TargetKindOf(rec.DestURL)
	for _, d := range fig.Destinations {
		rec.Dests = append(rec.Dests, verifystep.Dest{Queue: d.Queue, URL: d.URL, Moved: d.Moved})
	}
	if fig.Keep {
		// --keep copied: the originals stay in the DLQ on purpose.
		rec.Left += fig.Moved
	}
	if !fig.StartedAt.IsZero() {
		rec.StartedAt = fig.StartedAt
		if fig.DurationSeconds > 0 {
			rec.EndedAt = fig.StartedAt.Add(fig.Duration() + time.Second)
		}
	}
	// Every attempt's sends are matched against the DLQ; the figures of
	// the move (its start, what it moved) are the latest attempt's.
	attempt := max(fig.Attempt, 1)
	for _, e := range entries {
		attempt = max(attempt, e.Attempt)
	}
	rec.LatestAttempt = attempt
	sentIDs := map[string]bool{}
	for _, e := range entries {
		if e.Op != journal.OpSent {
			continue
		}
		rec.Sent = append(rec.Sent, verifystep.Sent{DLQMessageID: e.DLQMessageID, DestMessageID: e.DestMessageID, BodySHA256: e.BodySHA256,
			PayloadSHA256: e.PayloadSHA256, SentAt: e.Time, DestQueue: e.DestQueue, Attempt: max(e.Attempt, 1)})
		if rec.DestQueue == "" {
			rec.DestQueue = e.DestQueue
		}
		if max(e.Attempt, 1) != attempt {
			continue
		}
		sentIDs[e.DLQMessageID] = true
		if rec.StartedAt.IsZero() || e.Time.Before(rec.StartedAt) {
			rec.StartedAt = e.Time
		}
	}
	if rec.Moved == 0 {
		rec.Moved = len(sentIDs)
	}
	return rec
}

// compactedMoved is what a compacted journal sent in its latest attempt,
// for an interrupted redrive whose event is missing.
func compactedMoved(l *journal.Ledger) int {
	last, sent := 0, map[int]int{}
	for _, c := range l.Counts() {
		if c.Op == journal.OpSent {
			sent[c.Attempt] += c.N
			last = max(last, c.Attempt)
		}
	}
	return sent[last]
}

// destinations resolves the queues the messages were moved to: one, or
// each destination of a move to several, in the record's order.
func (o *VerifyOptions) destinations(ctx context.Context, c sqsapi.Client, rec verifystep.Redriven) ([]*sqsapi.Queue, error) {
	if rec.Target != "" {
		return []*sqsapi.Queue{{Name: rec.DestQueue, URL: rec.DestURL, ARN: rec.DestURL}}, nil
	}
	refs := []string{rec.DestURL}
	if rec.DestURL == "" {
		refs[0] = rec.DestQueue
	}
	if len(rec.Dests) > 0 {
		refs = refs[:0]
		for _, d := range rec.Dests {
			refs = append(refs, cmp.Or(d.URL, d.Queue))
		}
	}
	var out []*sqsapi.Queue
	for _, ref := range refs {
		q, err := sqsapi.Resolve(ctx, c, ref, o.deps.Region(ctx))
		if err != nil {
			return nil, fmt.Errorf("destination of the redrive: %w", err)
		}
		out = append(out, q)
	}
	return out, nil
}

// status rewrites one line on a terminal's stderr; nothing when piped or
// --quiet.
func (o *VerifyOptions) status(rec verifystep.Redriven, dest string) func(obs verifystep.Observation, deadline time.Time) {
	d := o.deps
	if !d.IO.ErrTTY || d.Global.Quiet {
		return nil
	}
	return func(obs verifystep.Observation, deadline time.Time) {
		deleted := "n/a"
		switch {
		case obs.Deleted != nil:
			deleted = fmt.Sprintf("%.0f/%d", *obs.Deleted, rec.Moved)
		case len(obs.Dests) > 0 && obs.Dests[0].DeletedSinceMove != nil:
			// A live destination: its own traffic's deletions and ours.
			deleted = fmt.Sprintf("%.0f (%d moved)", obs.Dests[0].DeletedSinceMove.Sum, rec.Moved)
		}
		if rec.Target != "" || len(obs.Dests) > 1 {
			// A function, topic or bus has no depth to show; several
			// destinations are judged each at the end.
			fmt.Fprintf(d.IO.ErrOut, "\r\x1b[Kverify: DLQ %d · %s · %s left", obs.DLQVisible+obs.DLQInFlight, dest, time.Until(deadline).Round(time.Second))
			return
		}
		fmt.Fprintf(d.IO.ErrOut, "\r\x1b[Kverify: DLQ %d · %s %d visible %d in flight · deleted %s · %s left",
			obs.DLQVisible+obs.DLQInFlight, dest, obs.DestVisible, obs.DestInFlight, deleted, time.Until(deadline).Round(time.Second))
	}
}

func (o *VerifyOptions) clearStatus() {
	d := o.deps
	if d.IO.ErrTTY && !d.Global.Quiet {
		fmt.Fprint(d.IO.ErrOut, "\r\x1b[K")
	}
}

// targetReturnWindow reads the return window of a redrive to a function, topic
// or bus with that service's client; verify never passes before it ends.
func (o *VerifyOptions) targetReturnWindow(ctx context.Context, c sqsapi.Client, dlq *sqsapi.Queue, rec verifystep.Redriven) (*verifystep.ReturnWindow, error) {
	d := o.deps
	rd := verifystep.ReturnWindowReaders{SQS: c, Region: d.Region(ctx), DLQARN: dlq.ARN}
	var err error
	switch rec.Target {
	case redrive.KindLambda:
		rd.Function, rd.Qualifier = redrive.FunctionRef(rec.DestURL)
		rd.Lambda, err = d.Lambda(ctx)
	case redrive.KindSNS:
		rd.SNS, err = d.SNS(ctx)
	case redrive.KindEvents:
		rd.Events, err = d.Events(ctx)
	}
	if err != nil {
		return nil, err
	}
	w, err := verifystep.ReadReturnWindow(ctx, rd, rec)
	if err != nil {
		return nil, fmt.Errorf("verify %s: %w", dlq.Name, err)
	}
	return w, nil
}

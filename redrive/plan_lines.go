package redrive

import (
	"fmt"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive/estimate"
	"github.com/mfdlq/mfdlq/redrive/provenance"
	"github.com/mfdlq/mfdlq/transform"
	"github.com/mfdlq/mfdlq/untrusted"
)

// PlanLine is one line of the plan. Detail names the part of the plan a
// detail belongs to (concurrency, lease, provenance and operator,
// idempotency, canary proof): a terminal shows those with --verbose only,
// a log always; "" for the lines a person decides on.
type PlanLine struct {
	Text, Detail string
}

// Lines are the plan as the operator reads it before saying yes: what
// moves from where to where, how fast and how long, and what stops it,
// then the details. ws is the incident (a --group's share of what
// classify read); operator the STS caller, said as given (sanitised here).
func (p *Plan) Lines(ws *incident.Workspace, operator string) []PlanLine {
	r, dlq := p.Req, p.Source.Queue
	var out []PlanLine
	say := func(detail, format string, args ...any) {
		out = append(out, PlanLine{Text: fmt.Sprintf(format, args...), Detail: detail})
	}
	est := estimate.Move(p.Bound, r.Rate, p.CanaryWait*time.Duration(min(p.Canary, 1)), r.Native)
	rate, dur := "max", est.Text()
	if r.Rate > 0 {
		rate = fmt.Sprintf("%g msg/s", r.Rate)
	}
	sel := "every message"
	if !r.Selection.Empty() {
		sel = r.Selection.Text()
	}
	verb := "move"
	if r.Keep {
		verb = "copy (--keep: nothing deleted)"
	}
	if r.Native {
		verb = "move with SQS's own message move task (--native)"
	}
	if n, of, ok := groupShare(ws, r.Group); ok {
		// The selection's count leads: "up to 350 of 350" for a group of
		// 130 read as if the whole DLQ would move.
		say("", "%s group %s: %d of the %d messages classify read, among the %s in %s → %s (it reads up to %d to find them)",
			verb, r.Group, n, of, plural.Of(p.Backlog, "message"), dlq.Name, p.DestName(), p.Bound)
	} else {
		say("", "%s up to %d of %s in %s → %s", verb, p.Bound, plural.Of(p.Backlog, "message"), dlq.Name, p.DestName())
	}
	for _, l := range p.SharedLines() {
		say("", "%s", l)
	}
	say("", "selection %s; rate %s; duration %s", sel, rate, dur)
	for _, w := range est.WaysOut() {
		say("", "%s", w)
	}
	if !r.Native {
		policy := fmt.Sprintf("adaptive, up to %d batches in flight (--max-workers)", p.Workers)
		if r.Workers > 0 {
			policy = fmt.Sprintf("fixed, %s in flight (--workers)", plural.Of(p.Workers, "batch", "batches"))
		}
		say("concurrency", "concurrency %s; a SIGKILL mid-move duplicates at most %s", policy, plural.Of(p.DuplicateBound(), "message"))
	}
	say("lease", "%s", p.LeaseLine())
	for _, l := range provenance.PlanLines(p.ProvenanceOff(), ws.Dir, p.Attempt, p.TransformLimits().MaxBytes, untrusted.Terminal(operator)) {
		say("provenance and operator", "%s", l)
	}
	for _, l := range p.WindowLines() {
		// Messages beyond the idempotency window are a decision now; the
		// store and "all within the window" are detail.
		if strings.HasPrefix(l, "idempotency:") || strings.HasPrefix(l, "none of the") || strings.HasPrefix(l, "the messages' ages are not known") {
			say("idempotency", "%s", l)
		} else {
			say("", "%s", l)
		}
	}
	if p.Canary > 0 {
		say("", "canary of %d first, then %s wait for them to come back (--canary 0 to skip)", p.Canary, p.CanaryWait)
		if l := p.CanaryProofLine(); l != "" {
			say("canary proof", "%s", l)
		}
	}
	if r.Native && dlq.FIFO {
		say("", "SQS replaced each message's deduplication id with its original MessageId when it entered the FIFO DLQ, and the move task sends it with that id: %s drops it, silently, if it saw that id in the last 5 minutes; in doubt mfdlq moves with its own mover (fresh mfdlq-<MessageId> ids)", p.DestName())
	}
	return out
}

// TransformLines are the plan's lines of --transform: the preview's counts
// f, the SNS signature line (sns: one of them is a notification), and how
// the originals are put back — the undo command, --keep's word, or for a
// replay the export itself, which never changes.
func (p *Plan) TransformLines(f transform.Figures, sns bool, ws *incident.Workspace) []string {
	undo := p.UndoCommand(ws)
	switch {
	case p.Req.Keep && p.Source.File == nil:
		undo = transform.KeepUndo
	case undo == "":
		undo = "the export " + p.Req.FromFile + " is the originals (it never changes)"
	}
	lines := transform.PlanLines(f, sns, undo)
	for i, l := range lines {
		lines[i] = strings.TrimLeft(l, " ")
	}
	return lines
}

// groupShare is how many of the messages classify read (classification.json
// in the incident) fell in group id: the size of a --group selection as
// far as it is known before the move reads the DLQ.
func groupShare(ws *incident.Workspace, id string) (n, of int, ok bool) {
	if id == "" {
		return 0, 0, false
	}
	c, err := classify.Load(ws)
	if err != nil {
		return 0, 0, false
	}
	g, found := c.Group(id)
	if !found || c.Messages <= 0 {
		return 0, 0, false
	}
	return g.Count, c.Messages, true
}

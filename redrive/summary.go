package redrive

import (
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/redrive/canary"
	"github.com/mfdlq/mfdlq/redrive/mover"
	"github.com/mfdlq/mfdlq/redrive/provenance"
	"github.com/mfdlq/mfdlq/transform"
	"github.com/mfdlq/mfdlq/untrusted"
)

// Outcome is how a redrive ended, the caller's exit status: OutcomeMoved
// is a success, OutcomeError and OutcomeInterrupted follow their cause,
// every other one is a check that did not pass.
type Outcome string

// Outcomes of a redrive, in the order they are decided: the first that
// holds is the run's.
const (
	// OutcomeCanaryBack: the canary's messages came back; the rest stayed.
	OutcomeCanaryBack Outcome = "canary_back"
	// OutcomeError: a call failed and stopped the run (Summary.Err).
	OutcomeError Outcome = "error"
	// OutcomeCanaryStill: nothing came back, but the canary is still in a
	// destination: nothing consumed it; the rest stayed.
	OutcomeCanaryStill Outcome = "canary_not_consumed"
	// OutcomeCanaryUnproven: nothing was seen back, but the DLQ's count
	// cannot prove that nothing came back; the rest stayed.
	OutcomeCanaryUnproven Outcome = "canary_not_proven"
	// OutcomeLeaseLost: another run took the lease over.
	OutcomeLeaseLost Outcome = "lease_lost"
	// OutcomeInterrupted: Ctrl-C; the same command finishes the move.
	OutcomeInterrupted Outcome = "interrupted"
	// OutcomeBreaker: --max-returned moved messages came back.
	OutcomeBreaker Outcome = "circuit_breaker"
	// OutcomeFilterHalt: --filter failed on every message of the first batch.
	OutcomeFilterHalt Outcome = "filter_halt"
	// OutcomeHalted: the run stopped for another reason (Stats.Halted).
	OutcomeHalted Outcome = "halted"
	// OutcomeFailed: some messages could not be moved.
	OutcomeFailed Outcome = "failed"
	// OutcomeFilterErrors: --filter failed on some messages.
	OutcomeFilterErrors Outcome = "filter_errors"
	// OutcomeTransformHalt: --transform failed on every message of the
	// first batch; OutcomeTransformErrors: on some messages.
	OutcomeTransformHalt   Outcome = "transform_halt"
	OutcomeTransformErrors Outcome = "transform_errors"
	// OutcomeAllReturned: nothing moved, the messages left came back after
	// this attempt; a new fix is needed.
	OutcomeAllReturned Outcome = "all_returned"
	// OutcomeMoved: the move is done.
	OutcomeMoved Outcome = "moved"
)

// Summary is what a redrive did: its figures, its outcome, and what the
// caller needs to say it.
type Summary struct {
	mover.Stats
	// Moved is sent by this run or resumed from an earlier one.
	Moved    int
	Started  time.Time
	Duration time.Duration
	// Achieved is the rate reached, counted from the rate's clock.
	Achieved float64
	// CanaryBack is how many of the canary came back.
	CanaryBack int
	// Attempt is the fix this redrive moved after.
	Attempt int
	// Beyond counts the messages beyond the consumer's idempotency window
	// the move met (Plan.Window): moved, or with --beyond-window keep left
	// in the DLQ (and in Skipped).
	Beyond int
	// Err stopped the run (its exit status follows it); LeaseLost is set
	// when another run took the lease over.
	Err       error
	LeaseLost *LeaseLostError
	Outcome   Outcome
	// Transform is what --transform did (nil without one); Undo the
	// command that puts the originals back ("" for a file replay).
	Transform *transform.Figures
	Undo      string
}

// outcomeOf decides the outcome: interrupted, halted or failed messages
// are not a success.
func outcomeOf(s *Summary, interrupted bool) Outcome {
	st := s.Stats
	switch {
	case s.CanaryBack > 0 && s.Err == nil && st.Halted == "":
		return OutcomeCanaryBack
	case s.Err != nil:
		return OutcomeError
	case strings.HasPrefix(st.Halted, canary.HaltStill):
		return OutcomeCanaryStill
	case strings.HasPrefix(st.Halted, canary.HaltUnproven):
		return OutcomeCanaryUnproven
	case s.LeaseLost != nil:
		return OutcomeLeaseLost
	case interrupted:
		return OutcomeInterrupted
	case strings.HasPrefix(st.Halted, "circuit breaker"):
		return OutcomeBreaker
	case strings.HasPrefix(st.Halted, mover.HaltFilter):
		return OutcomeFilterHalt
	case strings.HasPrefix(st.Halted, mover.HaltTransform):
		return OutcomeTransformHalt
	case st.Halted != "":
		return OutcomeHalted
	case st.Failed > 0:
		return OutcomeFailed
	case st.FilterErrors > 0:
		return OutcomeFilterErrors
	case st.TransformErrors > 0:
		return OutcomeTransformErrors
	case s.Moved == 0 && st.Returned > 0:
		return OutcomeAllReturned
	}
	return OutcomeMoved
}

// Round2 rounds a figure to two decimals, as the summary and the event
// record durations and rates.
func Round2(f float64) float64 { return float64(int64(f*100+0.5)) / 100 }

// fixEvent is the incident event of a fix recorded with --fixed.
func fixEvent(env *Env, p *Plan) (incident.Event, error) {
	ev := env.NewEvent("fix", p.Source.Queue)
	err := ev.Set(FixInputs{Change: p.Req.Fixed}, FixFigures{Attempt: p.Attempt})
	return ev, err
}

// redriveEvent is the incident event of a redrive: its inputs as asked
// and the figures of what it did.
func redriveEvent(env *Env, p *Plan, s *Summary) (incident.Event, error) {
	q, st, dest := p.Req, s.Stats, p.Dest()
	ev := env.NewEvent("redrive", p.Source.Queue)
	in := Inputs{To: dest.Queue.Name, Rate: q.RateText, Selection: q.Selection, Canary: p.Canary, Keep: q.Keep, Native: q.Native, FromFile: q.FromFile}
	fig := Figures{
		Moved: s.Moved, Resumed: st.Resumed, Failed: st.Failed, Skipped: st.Skipped, FilterErrors: st.FilterErrors, Returned: st.Returned,
		PendingDelete: st.PendingDelete, DurationSeconds: Round2(s.Duration.Seconds()), AchievedRate: Round2(s.Achieved),
		Rate: q.Rate, DestQueue: dest.Queue.Name, DestURL: dest.Queue.URL, StartedAt: s.Started.UTC().Truncate(time.Second),
		Native: q.Native, Keep: q.Keep, Attempt: max(p.Attempt, 1), PeakWorkers: st.PeakWorkers, Consumers: dest.Consumers,
	}
	if p.PerSource {
		in.To, fig.DestQueue, fig.DestURL, fig.Consumers = "", p.DestName(), "", nil
	}
	fig.Destinations, fig.Sourceless = destFigures(p, st), st.Sourceless
	outcomeFigures(&fig, p, s)
	fig.Transform, fig.Undo, fig.TransformErrors = s.Transform, s.Undo, st.TransformErrors
	fig.HeldBack = st.HeldBack
	fig.Idempotency, fig.Dedupe, fig.Provenance = p.Window.Figures(p.Req.BeyondWindow, s.Beyond), p.Dedupe.Figures(), provenance.NewFigures(p.ProvenanceOff(), env.OperatorARN, st.Stamps)
	if err := ev.Set(in, fig); err != nil {
		return ev, err
	}
	ev.Artifact = incident.JournalFile
	return ev, nil
}

// outcomeFigures records how the move ended and what it left where, so
// that the report can say a stop as the summary did (issue 40).
func outcomeFigures(fig *Figures, p *Plan, s *Summary) {
	fig.Outcome, fig.Halted, fig.CanaryBack, fig.Backlog = s.Outcome, s.Halted, s.CanaryBack, p.Backlog
	if s.Err != nil {
		fig.Error = untrusted.Shorten(s.Err.Error(), 300)
	}
	fig.HiddenLeft = s.Unseen
	if st := s.Stats; st.RehiddenLeft {
		fig.Rehidden, fig.RehiddenUntil = st.Rehidden, st.RehiddenUntil.UTC()
	}
	fig.LeftIn, fig.Left = LeftInDLQ, max(p.Backlog-s.Moved, 0)+s.CanaryBack
	switch {
	case p.Source.File != nil:
		// A file's canary returns land in the destination's own DLQ.
		fig.LeftIn, fig.Left = LeftInFile, max(p.Backlog-s.Moved, 0)
	case p.Req.Keep:
		fig.Left = p.Backlog
	}
}

// SummaryLine is a Summary as the JSON line of type "summary" that
// --output json ends with (docs/redrive-output.md); the fields stand in the order
// of the contract's keys.
type SummaryLine struct {
	AchievedRate    float64 `json:"achieved_rate"`
	DurationSeconds float64 `json:"duration_seconds"`
	Failed          int     `json:"failed"`
	FilterErrors    int     `json:"filter_errors"`
	Halted          string  `json:"halted"`
	HeldBack        int     `json:"held_back,omitempty"` // a FIFO group held back (Stats.HeldBack)
	Moved           int     `json:"moved"`
	PeakWorkers     int     `json:"peak_workers"`
	PendingDelete   int     `json:"pending_delete"`
	// Rehidden (and until when) only when the move's end found messages it
	// left in the DLQ hidden (Stats.Rehidden).
	Rehidden      int    `json:"rehidden,omitempty"`
	RehiddenUntil string `json:"rehidden_until,omitempty"`
	Resumed       int    `json:"resumed"`
	Returned      int    `json:"returned"`
	Skipped       int    `json:"skipped"`
	Type          string `json:"type"`
}

// Line is s as its JSON line.
func (s *Summary) Line() SummaryLine {
	st := s.Stats
	l := SummaryLine{AchievedRate: Round2(s.Achieved), DurationSeconds: Round2(s.Duration.Seconds()), Failed: st.Failed,
		FilterErrors: st.FilterErrors, Halted: st.Halted, HeldBack: st.HeldBack, Moved: s.Moved, PeakWorkers: st.PeakWorkers, PendingDelete: st.PendingDelete,
		Resumed: st.Resumed, Returned: st.Returned, Skipped: st.Skipped, Type: "summary"}
	if st.Rehidden > 0 {
		l.Rehidden, l.RehiddenUntil = st.Rehidden, st.RehiddenUntil.UTC().Format(time.RFC3339)
	}
	return l
}

// ProgressLine is a Moment as the JSON line of type "progress" that
// --output json streams during a move; Moved counts the resumed too.
type ProgressLine struct {
	Behind         string  `json:"behind"`
	ElapsedSeconds float64 `json:"elapsed_seconds"`
	Failed         int     `json:"failed"`
	FilterErrors   int     `json:"filter_errors"`
	Hidden         int     `json:"hidden"`
	Moved          int     `json:"moved"`
	Rate           float64 `json:"rate"`
	Returned       int     `json:"returned"`
	Skipped        int     `json:"skipped"`
	Total          int     `json:"total"`
	Type           string  `json:"type"`
	Workers        int     `json:"workers"`
}

// Line is m as its JSON line, elapsed seconds after its rate's clock
// started, at rate messages a second.
func (m Moment) Line(elapsed, rate float64) ProgressLine {
	st := m.Stats
	return ProgressLine{Behind: st.Behind, ElapsedSeconds: Round2(elapsed), Failed: st.Failed, FilterErrors: st.FilterErrors,
		Hidden: st.Hidden, Moved: st.Moved + st.Resumed, Rate: Round2(rate), Returned: st.Returned, Skipped: st.Skipped,
		Total: m.Total, Type: "progress", Workers: st.Workers}
}

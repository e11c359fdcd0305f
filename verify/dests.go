package verify

import (
	"fmt"
	"time"

	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// Dest is one destination of a move: its queue, and how many the move
// sent it. A shared DLQ's move sends each message back to its own source
// (redrive.Figures.Destinations); a move to one queue has one Dest.
type Dest struct {
	Queue string `json:"queue"`
	URL   string `json:"url"`
	Moved int    `json:"moved"`
}

// has tells whether ref (a journal entry's dest_queue: a URL, a name, or
// a DeadLetterQueueSourceArn) names d.
func (d Dest) has(ref string) bool {
	return ref != "" && (ref == d.URL || ref == d.Queue || sqsapi.NameOf(ref) == d.Queue || sqsapi.NameFromARN(ref) == d.Queue)
}

// destinations are the move's destinations, one for a move to one queue.
func (r Redriven) destinations() []Dest {
	if len(r.Dests) > 0 {
		return r.Dests
	}
	return []Dest{{Queue: r.DestQueue, URL: r.DestURL, Moved: r.Moved}}
}

// moveEnd is when the last redriven message was sent: the move's end, else
// the journal's last send, else its start.
func (r Redriven) moveEnd() time.Time {
	if !r.EndedAt.IsZero() {
		return r.EndedAt
	}
	end := r.StartedAt
	for _, s := range r.Sent {
		if s.SentAt.After(end) {
			end = s.SentAt
		}
	}
	return end
}

// requestIDs are the Invoke request ids of a redrive to a function, as
// its journal recorded them (each send's destination id), once each: the
// latest attempt's — an earlier attempt's events failed before this fix.
func (r Redriven) requestIDs() []string {
	latest := r.latestAttempt()
	seen := map[string]bool{}
	var out []string
	for _, s := range r.Sent {
		if s.DestMessageID != "" && !seen[s.DestMessageID] && max(s.Attempt, 1) == latest {
			seen[s.DestMessageID] = true
			out = append(out, s.DestMessageID)
		}
	}
	return out
}

// latestAttempt is the redrive's latest attempt: LatestAttempt, or the
// latest of the journal's sends (1 when none says).
func (r Redriven) latestAttempt() int {
	latest := max(r.LatestAttempt, 1)
	for _, s := range r.Sent {
		latest = max(latest, s.Attempt)
	}
	return latest
}

// DestObservation is one look at one destination queue.
type DestObservation struct {
	Queue string `json:"queue"`
	// Depth's Delayed are messages not yet visible (DelaySeconds): right
	// after a move to a delay queue every redriven message is one, not
	// consumed.
	sqsapi.Depth
	FIFO bool `json:"fifo"`
	// FailuresTo is where the queue's redrive policy sends its failures:
	// a DLQ's ARN, "none" without a policy, "" when not read (old
	// callers: taken as this DLQ). ReturnsHere: it is this DLQ.
	FailuresTo  string `json:"failures_to,omitempty"`
	ReturnsHere bool   `json:"returns_here"`
	// Deleted, Sent and Partial are a quiet destination's counts over the
	// move (MoveMetric); nil: no data.
	Deleted *float64 `json:"deleted"`
	Sent    *float64 `json:"sent"`
	Partial bool     `json:"partial_first_minute"`
	// Baseline is its own traffic before the move; a live destination
	// (Baseline.Live) is judged by its counts since the move and the age below instead
	// of being required to drain.
	Baseline *Traffic `json:"baseline,omitempty"`
	// DeletedSinceMove and SentSinceMove are those counts since the move's
	// first minute (verify.json keeps them under deleted_window and
	// sent_window, their keys from the start).
	DeletedSinceMove *MinuteSum `json:"deleted_window,omitempty"`
	SentSinceMove    *MinuteSum `json:"sent_window,omitempty"`
	// AgeOfOldest is the latest ApproximateAgeOfOldestMessage (Maximum of
	// its minute, seconds), as of AgeAt: the start of that minute, the
	// safe side (the sample may be anywhere in it).
	AgeOfOldest *float64  `json:"age_of_oldest_seconds,omitempty"`
	AgeAt       time.Time `json:"age_at,omitzero"`
	// At is the look; ReturnsBy is when a redriven message failing since
	// the move would be back in the DLQ at the latest: the move's end +
	// visibility timeout × (maxReceiveCount + 1).
	At        time.Time `json:"at"`
	ReturnsBy time.Time `json:"returns_by,omitzero"`
	// Delay is the queue's DelaySeconds, part of ReturnsBy: a redriven
	// message is delivered only after it.
	Delay time.Duration `json:"delay_seconds,omitempty"`
}

// returnsWord says how ReturnsBy was made.
func (o DestObservation) returnsWord() string {
	if o.Delay > 0 {
		return fmt.Sprintf("the move's end + its delay %s + visibility timeout × (maxReceiveCount + 1)", o.Delay)
	}
	return "the move's end + visibility timeout × (maxReceiveCount + 1)"
}

// elsewhere tells whether the destination's failures do not come back to
// this DLQ: no redrive policy (they cycle until retention deletes them),
// or one leading to another DLQ.
func (o DestObservation) elsewhere() bool {
	return o.FailuresTo != "" && !o.ReturnsHere
}

// failuresWord says where the destination's failures go instead.
func (o DestObservation) failuresWord() string {
	if o.FailuresTo == "none" {
		return "it has no redrive policy: a failing message cycles in it until retention deletes it"
	}
	return "its failures go to " + o.FailuresTo + ", not to this DLQ"
}

// DestResult is verify's verdict on one destination.
type DestResult struct {
	Queue    string          `json:"queue"`
	URL      string          `json:"url"`
	Moved    int             `json:"moved"`
	Returned int             `json:"returned"`
	Live     bool            `json:"live"`
	Pass     bool            `json:"pass"`
	Verdict  Verdict         `json:"verdict"`
	Reasons  []string        `json:"reasons"`
	Last     DestObservation `json:"last"`
}

// destObservations are the look's destinations: Dests, or the flat fields
// of a look at one destination (tests, and old callers).
func (o Observation) destObservations(r Redriven) []DestObservation {
	if len(o.Dests) > 0 {
		return o.Dests
	}
	return []DestObservation{{Queue: r.DestQueue, Depth: sqsapi.Depth{Visible: o.DestVisible, InFlight: o.DestInFlight, Delayed: o.DestDelayed}, Deleted: o.Deleted, Sent: o.Sent, Partial: o.Partial}}
}

// judgeDests judges each destination; a destination passes when each of
// its checks holds.
func judgeDests(o Observation, r Redriven) (out []DestResult, unmet, met, unchecked []string) {
	obs := o.destObservations(r)
	for i, d := range r.destinations() {
		var dob DestObservation
		if i < len(obs) {
			dob = obs[i]
		}
		var u, m, un []string
		switch {
		case i >= len(obs):
			// Never a pass for a destination nobody looked at.
			u = []string{fmt.Sprintf("%s was not looked at", d.Queue)}
		case dob.Baseline.Live():
			u, m, un = judgeLive(dob, d, r.moveEnd())
		default:
			u, m, un = judgeQuiet(dob, d)
		}
		dr := DestResult{Queue: d.Queue, URL: d.URL, Moved: d.Moved, Live: dob.Baseline.Live(), Pass: len(u) == 0, Last: dob}
		for _, ret := range o.Returned {
			if d.has(ret.DestQueue) {
				dr.Returned++
			}
		}
		dr.Pass = dr.Pass && dr.Returned == 0
		// A destination fails on a return; one whose checks have not
		// held yet is not proven, never failed.
		dr.Verdict = verdictOf(dr.Pass, dr.Returned > 0)
		dr.Reasons = append(append(append([]string{}, u...), m...), prefixed(un)...)
		out = append(out, dr)
		unmet, met, unchecked = append(unmet, u...), append(met, m...), append(unchecked, un...)
	}
	return out, unmet, met, unchecked
}

func prefixed(unchecked []string) []string {
	out := make([]string, len(unchecked))
	for i, u := range unchecked {
		out[i] = "not checked: " + u
	}
	return out
}

// judgeQuiet judges a destination with no traffic of its own: it drained,
// and — when CloudWatch has the metrics — received and deleted at least
// what was moved.
func judgeQuiet(o DestObservation, d Dest) (unmet, met, unchecked []string) {
	if o.Total() == 0 {
		met = append(met, fmt.Sprintf("%s drained", d.Queue))
	} else {
		unmet = append(unmet, fmt.Sprintf("%s not drained yet: %d visible, %d in flight, %d delayed", d.Queue, o.Visible, o.InFlight, o.Delayed))
	}
	for _, m := range []struct {
		name, verb string
		v          *float64
	}{{cwapi.MetricMessagesSent, "received", o.Sent}, {cwapi.MetricMessagesDeleted, "deleted", o.Deleted}} {
		switch {
		case m.v == nil && o.elsewhere() && o.FailuresTo != "none" && m.name == cwapi.MetricMessagesDeleted:
			// A drain is the only other evidence, and it cannot tell a
			// consumed message from one that failed to the other DLQ
			// (without a policy a failing message stays: a drain tells).
			unmet = append(unmet, fmt.Sprintf("not proven: CloudWatch has no %s for %s over the move, and %s drained or not cannot tell consumed from failed (%s)",
				m.name, d.Queue, d.Queue, o.failuresWord()))
		case m.v == nil:
			unchecked = append(unchecked, fmt.Sprintf("that %s %s what was moved: CloudWatch has no %s for it over the move", d.Queue, m.verb, m.name))
		case *m.v >= float64(d.Moved):
			met = append(met, fmt.Sprintf("%s %s %.0f over the move (%s; %d moved)", d.Queue, m.verb, *m.v, m.name, d.Moved))
		case o.Partial:
			unchecked = append(unchecked, fmt.Sprintf("that %s %s what was moved: %s counts %.0f of %d after the move's first minute, which also holds earlier traffic and is left out", d.Queue, m.verb, m.name, *m.v, d.Moved))
		default:
			unmet = append(unmet, fmt.Sprintf("%s %s %.0f over the move (%s), fewer than the %d moved", d.Queue, m.verb, *m.v, m.name, d.Moved))
		}
	}
	return unmet, met, unchecked
}

// judgeLive judges a destination with traffic of its own, which never
// drains: no redriven message can still be on its way back (the watch
// reached ReturnsBy), none is left in it (the age of its oldest message is
// below the time since the last redriven send), and its deletions and
// sends since the move exceed its own rate by what was moved.
func judgeLive(o DestObservation, d Dest, end time.Time) (unmet, met, unchecked []string) {
	if o.elsewhere() && !o.FIFO {
		unchecked = append(unchecked, fmt.Sprintf("that no redriven message is still failing in %s: %s, and SQS leaves a message received three or more times out of %s on a standard queue, so the age check cannot see it",
			d.Queue, o.failuresWord(), cwapi.MetricAgeOfOldest))
	} else if o.elsewhere() {
		unchecked = append(unchecked, fmt.Sprintf("that no redriven message failed in %s: %s", d.Queue, o.failuresWord()))
	}
	if o.At.Before(o.ReturnsBy) {
		unmet = append(unmet, fmt.Sprintf("%s: a redriven message failing now could still come back to the DLQ until %s (%s)",
			d.Queue, o.ReturnsBy.UTC().Format(time.RFC3339), o.returnsWord()))
	} else {
		met = append(met, fmt.Sprintf("%s: no redriven message came back by %s (%s)", d.Queue, o.ReturnsBy.UTC().Format(time.RFC3339), o.returnsWord()))
	}
	switch since := o.AgeAt.Sub(end).Seconds(); {
	case o.AgeOfOldest == nil:
		unmet = append(unmet, awaiting(d.Queue, cwapi.MetricAgeOfOldest))
	case o.Delay > 0 && o.AgeAt.Before(end.Add(o.Delay)):
		// A minute begun while the redriven messages were still delayed:
		// SQS does not say their age counts then, and the queue's own
		// young messages would read as them gone.
		unmet = append(unmet, fmt.Sprintf("%s: waiting for CloudWatch's %s of a minute begun after the redriven messages' delay %s (its latest, %s, began while they were delayed)",
			d.Queue, cwapi.MetricAgeOfOldest, o.Delay, o.AgeAt.UTC().Format("15:04")))
	case *o.AgeOfOldest < since:
		met = append(met, fmt.Sprintf("%s's oldest message is %.0fs old, younger than the last redriven send %.0fs ago (%.0fs before the move)", d.Queue, max(*o.AgeOfOldest, 0), since, ageOr0(o.Baseline)))
	default:
		unmet = append(unmet, fmt.Sprintf("%s's oldest message is %.0fs old, not younger than the last redriven send %.0fs ago: some may still be there", d.Queue, max(*o.AgeOfOldest, 0), since))
	}
	for _, m := range []struct {
		name, verb string
		w          *MinuteSum
		own        cwapi.Spread
	}{{cwapi.MetricMessagesSent, "received", o.SentSinceMove, spreadOr(o.Baseline.SentSpread, o.Baseline.SentPerMinute)},
		{cwapi.MetricMessagesDeleted, "deleted", o.DeletedSinceMove, spreadOr(o.Baseline.DeletedSpread, o.Baseline.DeletedPerMinute)}} {
		if m.w == nil {
			unmet = append(unmet, awaiting(d.Queue, m.name))
			continue
		}
		if ok, line := excess(d.Queue, m.verb, m.name, m.w, m.own, d.Moved); ok {
			met = append(met, line)
		} else {
			unmet = append(unmet, "not proven: "+line)
		}
	}
	return unmet, met, unchecked
}

// awaiting is a live destination's metric without data since the move: it
// had data before (that is what makes it live), so CloudWatch is late —
// SQS publishes a minute or more after the fact — and the evidence is
// awaited, never taken as "not checked".
func awaiting(queue, metric string) string {
	return fmt.Sprintf("%s: waiting for CloudWatch's %s since the move (SQS publishes it a minute or more late)", queue, metric)
}

func ageOr0(t *Traffic) float64 {
	if t == nil || t.AgeOfOldest == nil {
		return 0
	}
	return *t.AgeOfOldest
}

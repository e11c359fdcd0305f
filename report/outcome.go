package report

import (
	"fmt"
	"strings"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive"
)

// moveEnd is how a redrive ended in words: how it stopped, what it left
// where, and what to do next, every value encoded. A move that ended
// done, or an event written before outcomes were recorded, has none: the
// report then reads as it did, by the counts alone.
type moveEnd struct {
	stop, left, next string
}

// stopped says whether the move ended before it was done.
func (e moveEnd) stopped() bool { return e.stop != "" }

// latestEnd is the end of the latest redrive.
func (inc *Incident) latestEnd() moveEnd {
	ev, ok := inc.Latest(incident.StepRedrive)
	if !ok {
		return moveEnd{}
	}
	return inc.moveEndOf(redrive.FiguresOf(ev), inc.plain(orDash(ev.Queue), maxName))
}

// moveEndOf reads a redrive event's outcome and figures into words.
func (inc *Incident) moveEndOf(f redrive.Figures, dlq string) moveEnd {
	if f.Outcome == "" || f.Outcome == redrive.OutcomeMoved {
		return moveEnd{}
	}
	var e moveEnd
	if !inc.canaryEnd(&e, f, dlq) && !inc.programEnd(&e, f, dlq) && !inc.stopEnd(&e, f, dlq) {
		e.stop = "outcome " + inc.plain(string(f.Outcome), maxName)
	}
	e.left = inc.leftText(f, dlq)
	return e
}

// canaryEnd words a move the canary stopped; false for another outcome.
func (inc *Incident) canaryEnd(e *moveEnd, f redrive.Figures, dlq string) bool {
	dest := inc.plain(orDash(f.DestQueue), maxName)
	switch f.Outcome {
	case redrive.OutcomeCanaryStill:
		e.stop = "the canary was not consumed (nothing read it from " + dest + ")"
		e.next = "start the consumer of " + dest + " (mfdlq contain shows what reads it), then run the same redrive again for the rest"
	case redrive.OutcomeCanaryUnproven:
		e.stop = "the canary could not be proven: " + dlq + "'s count after it was not what the canary left (a return, or new failures, the peek could not tell)"
		e.next = "stop new failures (mfdlq contain) and run the same redrive again, or look with mfdlq verify; --canary 0 moves without proof"
	case redrive.OutcomeCanaryBack:
		e.stop = fmt.Sprintf("%s of the canary came back to %s — the fix is not the right one", plural.Of(f.CanaryBack, "message"), dlq)
		e.next = "back to step 2 (mfdlq classify)"
	default:
		return false
	}
	return true
}

// programEnd words a move --transform or --filter stopped; false for another
// outcome.
func (inc *Incident) programEnd(e *moveEnd, f redrive.Figures, dlq string) bool {
	halted := inc.plain(f.Halted, maxValue)
	switch f.Outcome {
	case redrive.OutcomeTransformHalt:
		e.stop = "--transform failed on the whole first batch — " + halted
		e.next = "fix the program (mfdlq redrive --transform … --dry-run shows each message's result) and run the same redrive again"
	case redrive.OutcomeTransformErrors:
		e.stop = "--transform failed on " + plural.Of(f.TransformErrors, "message") + " (left in " + dlq + ")"
		e.next = "fix the program for those and run the same redrive again"
	case redrive.OutcomeFilterHalt:
		e.stop = "--" + halted
		e.next = "fix the filter (it sees the message with .Body parsed when it is JSON)"
	case redrive.OutcomeFilterErrors:
		e.stop = "--filter failed on " + plural.Of(f.FilterErrors, "message")
		e.next = "fix the filter and run the same redrive again"
	default:
		return false
	}
	return true
}

// stopEnd words a move stopped by an error, the lease, Ctrl-C, the circuit
// breaker, a halt, failed sends or returns; false for another outcome.
func (inc *Incident) stopEnd(e *moveEnd, f redrive.Figures, dlq string) bool {
	halted := inc.plain(f.Halted, maxValue)
	switch f.Outcome {
	case redrive.OutcomeError:
		e.stop = "an error — " + inc.plain(orDash(f.Error), maxValue)
		e.next = "fix what the error names and run the same redrive again (it does not send again what the journal holds)"
	case redrive.OutcomeLeaseLost:
		e.stop = "another run took the DLQ's lease over"
		e.next = "the other run goes on with the rest; what moved stays moved"
	case redrive.OutcomeInterrupted:
		e.stop = "interrupted (Ctrl-C)"
		if f.Rehidden > 0 {
			e.stop += fmt.Sprintf(" (%s left in %s stayed hidden until %s: a receive whose answer was lost hid them again; they reappear by themselves)",
				plural.Of(f.Rehidden, "message"), dlq, f.RehiddenUntil.UTC().Format("15:04:05 UTC"))
		}
		e.next = "run the same redrive again to finish the move"
	case redrive.OutcomeBreaker:
		e.stop = "the circuit breaker tripped — " + halted
		e.next = "the fix is not the right one: back to step 2 (mfdlq classify)"
	case redrive.OutcomeHalted:
		e.stop = "halted — " + halted
		e.next = "run the same redrive again for the rest"
	case redrive.OutcomeFailed:
		e.stop = plural.Of(f.Failed, "message") + " could not be moved"
		if f.HiddenLeft > 0 {
			e.stop += fmt.Sprintf(" (%d stayed hidden in %s for the whole wait: they reappear after the visibility timeout)", f.HiddenLeft, dlq)
		}
		e.next = "run the same redrive again (see redrive-journal.jsonl for the last error)"
	case redrive.OutcomeAllReturned:
		e.stop = fmt.Sprintf("nothing moved — the %s left came back after attempt %d", plural.Of(f.Returned, "message"), max(f.Attempt, 1))
		e.next = `deploy a new fix and run the redrive with --fixed "what changed"`
	default:
		return false
	}
	return true
}

// leftText says what the move left where: in the destination, in the
// DLQ, in the file.
func (inc *Incident) leftText(f redrive.Figures, dlq string) string {
	var parts []string
	if n := f.Moved - f.CanaryBack; n > 0 {
		parts = append(parts, fmt.Sprintf("%s in %s", plural.Of(n, "message"), inc.plain(orDash(f.DestQueue), maxName)))
	}
	switch f.LeftIn {
	case redrive.LeftInFile:
		parts = append(parts, fmt.Sprintf("%s not sent, left in the file (it is unchanged)", plural.Of(f.Left, "line")))
	case redrive.LeftInDLQ:
		parts = append(parts, fmt.Sprintf("%s left in %s", plural.Of(f.Left, "message"), dlq))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, ", ")
}

package redrive

import (
	"fmt"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/untrusted"
)

// OutcomeLine says why a redrive whose outcome is not a success did not
// succeed, naming what to do next; "" for OutcomeMoved, and for
// OutcomeError and OutcomeInterrupted, whose lines follow their cause.
// refused tells a refusal (nothing moved: a new fix is needed) from a
// check that did not pass.
func (s *Summary) OutcomeLine() (line string, refused bool) {
	st := s.Stats
	switch s.Outcome {
	case OutcomeCanaryStill, OutcomeCanaryUnproven:
		return fmt.Sprintf("%s; the rest stays in the DLQ", st.Halted), false
	case OutcomeLeaseLost:
		return fmt.Sprintf("stopped: %s; what moved stays moved, and the other run goes on with the rest", untrusted.Shorten(untrusted.Terminal(s.LeaseLost.Error()), 300)), false
	case OutcomeBreaker:
		return fmt.Sprintf("halted: %s: the fix is not the right one — back to step 2 (mfdlq classify)", st.Halted), false
	case OutcomeFilterHalt:
		return fmt.Sprintf("--%s; nothing was moved: fix the filter (it sees the message with .Body parsed when it is JSON)", st.Halted), false
	case OutcomeHalted:
		return fmt.Sprintf("halted: %s; what moved stays moved, the rest is in the DLQ", st.Halted), false
	case OutcomeFailed:
		return fmt.Sprintf("%s could not be moved and stay in the DLQ (last error: %s); see %s", plural.Of(st.Failed, "message"), st.LastError, incident.JournalFile), false
	case OutcomeFilterErrors:
		return fmt.Sprintf("--filter failed on %s, left in the DLQ (journaled as filter_error in %s): fix the filter and run the same command again", plural.Of(st.FilterErrors, "message"), incident.JournalFile), false
	case OutcomeTransformHalt:
		return fmt.Sprintf("--%s; nothing was moved: fix the program (it sees the payload: docs/transform.md)", st.Halted), false
	case OutcomeTransformErrors:
		return fmt.Sprintf("--transform failed on %s, left in the DLQ (journaled as transform_failed in %s): fix the program and run the same command again", plural.Of(st.TransformErrors, "message"), incident.JournalFile), false
	case OutcomeAllReturned:
		return fmt.Sprintf("nothing moved: the %s left came back after attempt %d; deploy a new fix and pass --fixed \"what changed\"", plural.Of(st.Returned, "message"), s.Attempt), true
	}
	return "", false
}

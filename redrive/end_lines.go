package redrive

import (
	"fmt"
	"time"

	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/untrusted"
)

// EndLine is one line of what a move's end says on stderr: a warning
// (Warn: something is left to do) or news.
type EndLine struct {
	Warn bool
	Text string
}

// rehiddenWhy is why messages a move left in the DLQ can be hidden at its
// end.
const rehiddenWhy = "a receive whose answer was lost hid them again, or SQS did not confirm their release"

// HeadLines are the summary's first lines: each destination's, what
// --dedupe left, and the provenance stamp's.
func (s *Summary) HeadLines(p *Plan) []string {
	lines := s.DestLines(p)
	if f := p.Dedupe.Figures(); f != nil {
		lines = append(lines, f.SummaryLine())
	}
	if l := s.ProvenanceLine(p); l != "" {
		lines = append(lines, l)
	}
	return lines
}

// CanaryBackLine is the verdict of canary messages that came back to the
// DLQ ("" unless the outcome is OutcomeCanaryBack): the fix is not the
// right one.
func (s *Summary) CanaryBackLine(p *Plan) string {
	if s.Outcome != OutcomeCanaryBack {
		return ""
	}
	return fmt.Sprintf("canary: %s came back to %s: the fix is not the right one — back to step 2 (mfdlq classify)", plural.Of(s.CanaryBack, "moved message"), p.Source.Queue.Name)
}

// Notes are what the summary says before its outcome's verdict, in order:
// messages that came back, a --rate not reached (rate: the one asked, 0
// for max), messages left hidden or undeleted, the --filter and
// --transform errors, FIFO groups held back, and the transform's figures.
func (s *Summary) Notes(p *Plan, rate float64) []EndLine {
	st, dlq := s.Stats, p.Source.Queue.Name
	var out []EndLine
	warn := func(format string, args ...any) { out = append(out, EndLine{true, fmt.Sprintf(format, args...)}) }
	info := func(format string, args ...any) { out = append(out, EndLine{false, fmt.Sprintf(format, args...)}) }
	if st.Returned > 0 {
		warn("%s came back to %s after attempt %d and were not moved again: once a new fix is deployed, record it with --fixed \"what changed\" to move them in attempt %d", plural.Of(st.Returned, "message"), dlq, s.Attempt, s.Attempt+1)
	}
	if st.Behind != "" && rate > 0 && s.Achieved < 0.97*rate {
		warn("--rate %g not reached (%.1f msg/s): %s", rate, s.Achieved, st.Behind)
	}
	if st.RehiddenLeft {
		warn("%s left in the DLQ stay hidden until %s (%s): they reappear by themselves, nothing is lost",
			plural.Of(st.Rehidden, "message"), st.RehiddenUntil.Format("15:04:05 UTC"), rehiddenWhy)
	}
	if st.PendingDelete > 0 {
		warn("%s sent but not deleted (the delete failed): run the same command again to delete them (they will not be sent twice)", plural.Of(st.PendingDelete, "message"))
	}
	for _, t := range st.FilterErrorTexts {
		warn("--filter failed: %s", untrusted.Shorten(untrusted.Terminal(t), 300))
	}
	for _, t := range st.TransformErrorTexts {
		warn("--transform failed: %s", untrusted.Shorten(untrusted.Terminal(t), 300))
	}
	if st.HeldBack > 0 {
		warn("%s held back in the DLQ: an earlier message of their FIFO group failed and stays there, and sent they would reach the consumer out of order; deal with that one and run the same command again", plural.Of(st.HeldBack, "message"))
	}
	if f := s.Transform; f != nil {
		info("transform: %d changed, %d unchanged, %d failed (left in the DLQ)", f.Changed, f.Unchanged, f.Failed)
		if f.Unsigned > 0 {
			info("transform: %s sent without their signature fields", plural.Of(f.Unsigned, "SNS envelope"))
		}
		if s.Undo != "" {
			info("undo: %s", untrusted.Terminal(s.Undo))
		}
	}
	return out
}

// MovedLines are the lines of a move that succeeded: what moved where, how
// fast, and the messages left hidden in the DLQ.
func (s *Summary) MovedLines(p *Plan) []string {
	st := s.Stats
	lines := []string{fmt.Sprintf("moved %s to %s in %s (%.1f msg/s)", plural.Of(s.Moved, "message"), p.DestName(), s.Duration.Round(100*time.Millisecond), s.Achieved)}
	if st.Rehidden > 0 {
		lines = append(lines, fmt.Sprintf("%s left in %s: hidden at the move's end (%s); it waited until %s, when they are visible again",
			plural.Of(st.Rehidden, "message"), p.Source.Queue.Name, rehiddenWhy, st.RehiddenUntil.Format("15:04:05 UTC")))
	}
	return lines
}

// HeadLines are what a redrive says of its plan before the guardrails:
// the destination's account, region and queue, a target's lines, and a
// move across accounts (a warning).
func (p *Plan) HeadLines() []EndLine {
	q := p.Dest().Queue
	out := []EndLine{{Text: fmt.Sprintf("destination: account %s · region %s · %s", orUnknown(q.Account), orUnknown(q.Region), p.DestText())}}
	for _, l := range p.Dest().TargetLines {
		out = append(out, EndLine{Text: "target: " + l})
	}
	if l := p.CrossAccount(); l != "" {
		out = append(out, EndLine{Warn: true, Text: "plan: " + l})
	}
	return out
}

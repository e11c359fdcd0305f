package redrive

import (
	"fmt"
	"strings"

	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive/canary"
	"github.com/mfdlq/mfdlq/redrive/mover"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// SharedLines say, for the plan, where a shared DLQ's messages go: each
// source with its share of the sample, the messages without a source, and
// with --to what happens to the other sources' messages. None for a DLQ
// of one source.
func (p *Plan) SharedLines() []string {
	s := p.Sample
	var out []string
	switch {
	case p.PerSource:
		out = append(out, fmt.Sprintf("shared DLQ: each message back to its own source queue (its %s), %s:", sqsjson.AttrDeadLetterQueueSourceArn, plural.Of(len(p.Dests), "destination")))
		for _, d := range p.Dests {
			line := "  → " + d.Queue.Name
			if s.Looked > 0 { // an export has no sample: its lines name their sources
				line += fmt.Sprintf(": %d of %d looked at", d.Share, s.Looked)
			}
			out = append(out, line)
		}
		if p.Canary > 0 {
			out = append(out, fmt.Sprintf("canary per destination: up to %d to each first, the rest only if none of any comes back", p.Canary))
		}
		if s.Sourceless > 0 {
			out = append(out, fmt.Sprintf("%d of %d looked at carry no %s: they stay in the DLQ; move them with --to QUEUE", s.Sourceless, s.Looked, sqsjson.AttrDeadLetterQueueSourceArn))
		}
		if p.Req.Native {
			out = append(out, "--native: SQS's move task starts without a destination and returns each message to its own source queue; a message without a source fails the task")
		}
	case p.Narrow && p.Req.Native:
		out = append(out, fmt.Sprintf("shared DLQ: SQS's move task sends every message to %s, whatever its source; the sample showed none from another queue", p.Dest().Queue.Name))
	case p.Narrow:
		out = append(out, fmt.Sprintf("shared DLQ: only messages that came from %s (or carry no source) go to it; the others stay in the DLQ (--force sends them too)", p.Dest().Queue.Name))
	}
	return out
}

// DestText names where the messages go, for the line naming account and
// region: the one destination, or the shared DLQ's source queues.
func (p *Plan) DestText() string {
	if !p.PerSource {
		return p.Dest().Text()
	}
	return "each message's own source queue: " + p.destNames()
}

// DestName is the destination in a sentence: a queue's name, or "their
// source queues".
func (p *Plan) DestName() string {
	if p.PerSource {
		return "their own source queues"
	}
	return p.Dest().Queue.Name
}

// destNames lists the destinations' names.
func (p *Plan) destNames() string {
	names := make([]string, len(p.Dests))
	for i, d := range p.Dests {
		names[i] = d.Queue.Name
	}
	return strings.Join(names, ", ")
}

// canaryText says how a canary per destination went: "3 to orders, 3 to
// payments" (a destination none reached is named with 0).
func canaryText(p *Plan, st mover.Stats) string {
	parts := make([]string, len(p.Dests))
	for i, d := range p.Dests {
		parts[i] = fmt.Sprintf("%d to %s", st.Dests[d.Queue.URL].Moved, d.Queue.Name)
	}
	return strings.Join(parts, ", ")
}

// backText names, for a canary that came back, how many came back from
// each destination: the consumer whose fix is not the right one.
func backText(p *Plan, by map[string]int) []string {
	if !p.PerSource {
		return nil
	}
	var out []string
	for _, d := range p.Dests {
		if n := by[d.SourceARN]; n > 0 {
			out = append(out, fmt.Sprintf("%s came back from %s: its consumer still fails them", plural.Of(n, "message"), d.Queue.Name))
		}
	}
	return out
}

// destFigures are a routed move's figures per destination, in the plan's
// order (none for a move to one destination).
func destFigures(p *Plan, st mover.Stats) []DestFigures {
	if !p.PerSource {
		return nil
	}
	out := make([]DestFigures, len(p.Dests))
	for i, d := range p.Dests {
		ds := st.Dests[d.Queue.URL]
		out[i] = DestFigures{Queue: d.Queue.Name, URL: d.Queue.URL, Moved: ds.Moved, Failed: ds.Failed, Consumers: d.Consumers}
	}
	return out
}

// DestLines say a routed move's outcome per destination, and what stayed
// in the DLQ and how to move it; none for a move to one destination.
func (s *Summary) DestLines(p *Plan) []string {
	var out []string
	for _, d := range destFigures(p, s.Stats) {
		out = append(out, fmt.Sprintf("→ %s: %d moved, %d failed", d.Queue, d.Moved, d.Failed))
	}
	if p.Source.File != nil {
		return append(out, s.fileLeftLines(p)...)
	}
	if s.Sourceless > 0 {
		out = append(out, fmt.Sprintf("%s without a %s stayed in the DLQ: move them with --to QUEUE", plural.Of(s.Sourceless, "message"), sqsjson.AttrDeadLetterQueueSourceArn))
	}
	switch {
	case s.OtherSource > 0 && p.PerSource:
		out = append(out, fmt.Sprintf("%s from queues the plan did not list stayed in the DLQ: run the same command again to plan for them", plural.Of(s.OtherSource, "message")))
	case s.OtherSource > 0:
		out = append(out, fmt.Sprintf("%s from other queues than %s stayed in the DLQ: run without --to to send each back to its own source", plural.Of(s.OtherSource, "message"), p.Dest().Queue.Name))
	}
	return out
}

// fileLeftLines say what a replay left in its file: the lines without a
// source, those whose recorded source was refused (with the reason), and
// any other unsent. A file is never changed, so "the DLQ" is never where
// they are, and the same command plans the same again.
func (s *Summary) fileLeftLines(p *Plan) []string {
	var out []string
	if s.Sourceless > 0 {
		out = append(out, fmt.Sprintf("%s without a %s left in the file: replay them with --to QUEUE", plural.Of(s.Sourceless, "line"), sqsjson.AttrDeadLetterQueueSourceArn))
	}
	refused := 0
	for _, r := range p.FileRefused {
		refused += r.Lines
		out = append(out, r.Line())
	}
	if n := s.OtherSource - refused; n > 0 {
		out = append(out, fmt.Sprintf("%s for queues the plan did not list left in the file: replay them with --to QUEUE", plural.Of(n, "line")))
	}
	return out
}

// AtLeastOnce is the warning every move gives: a message can arrive twice.
func (p *Plan) AtLeastOnce() string {
	if p.PerSource {
		return "redrive is at least once: a message can reach its source queue twice, so each consumer must be idempotent"
	}
	return fmt.Sprintf("redrive is at least once: a message can reach %s twice, so its consumer must be idempotent", p.Dest().Queue.Name)
}

// CanaryProofLine says how the canary proves that none of it came back,
// and what that proof cannot see: the DLQ's count cannot tell a return
// from a new failure of another producer, and the peek that finds returns
// by identity sees only the oldest messages (on FIFO, each group's first
// batch). "" without a canary.
func (p *Plan) CanaryProofLine() string {
	if p.Canary <= 0 {
		return ""
	}
	q := p.Source.Queue
	if p.Source.File != nil {
		if q = p.Source.ReturnsTo; q == nil {
			return ""
		}
	}
	seen := fmt.Sprintf("a peek finds returns by MessageId among its oldest %d", canary.PeekMax)
	if q.FIFO {
		seen = "a peek finds returns by MessageId only in each message group's first batch"
	}
	return fmt.Sprintf("canary proof: %s's count (visible + in flight + delayed) must fall by exactly what the canary takes; %s; a new failure from elsewhere reads as a return: not proven stops the move (exit 3) — stop them first (mfdlq contain)", q.Name, seen)
}

package mover

import (
	"slices"
	"time"

	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive/journal"

	"github.com/mfdlq/mfdlq/sqsjson"
	"github.com/mfdlq/mfdlq/untrusted"
)

// maxErrorText bounds an error text kept in the figures and the journal.
const maxErrorText = 300

// maxFilterErrorTexts is how many distinct filter error texts the figures
// keep for the operator to read.
const maxFilterErrorTexts = 3

// filterErrors counts the messages on which the filter failed, apart from
// the ones it did not pick: they are left in the DLQ, journaled with the
// error, and the first texts kept. When every message of the first batch
// the filter saw failed, the filter is broken, not the messages: the run
// halts before it moves anything. Called under the lock.
func (m *Mover) filterErrors(p *triaged, errored []sqsjson.Message, errs []string, candidates int, now time.Time) {
	first := !m.probed && candidates > 0
	if candidates > 0 {
		m.probed = true
	}
	for i, msg := range errored {
		m.t.Finish(msg.MessageId)
		m.stats.FilterErrors++
		p.skipped = append(p.skipped, journal.Entry{Time: now, Run: m.o.RunID, Attempt: m.o.Attempt, Op: journal.OpFilterError, DLQMessageID: msg.MessageId, BodySHA256: sqsjson.BodySHA256(msg.Body), DestQueue: m.o.Dest.URL, Error: errs[i]})
		if len(m.stats.FilterErrorTexts) < maxFilterErrorTexts && !slices.Contains(m.stats.FilterErrorTexts, errs[i]) {
			m.stats.FilterErrorTexts = append(m.stats.FilterErrorTexts, errs[i])
		}
	}
	p.release = append(p.release, errored...)
	if first && len(errored) == candidates && m.stats.Halted == "" {
		m.stats.Halted = HaltFilter + plural.Of(len(errored), "message") + " of the first batch"
	}
}

// HaltFilter starts Stats.Halted when the filter failed on every message
// of the first batch.
const HaltFilter = "filter failed on every one of the "

// boundText cuts s to at most n bytes at a token boundary
// (untrusted.Head): the report redacts it later, and a card cut in two is
// no longer recognised.
func boundText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return untrusted.Head(s, n) + "…"
}

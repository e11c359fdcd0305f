package logsearch

import (
	"fmt"
	"regexp"
	"time"

	"github.com/mfdlq/mfdlq/sqsjson"
)

// validID is what a MessageId looks like: SQS gives UUIDs. Holding ids to
// these characters keeps them safe inside filter patterns and queries.
var validID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

// ValidID tells whether id can be searched for.
func ValidID(id string) bool { return validID.MatchString(id) }

// InvalidIDError is a MessageId that cannot be searched for: it could
// change a filter pattern or an Insights query.
type InvalidIDError struct{ ID string }

func (e *InvalidIDError) Error() string {
	id := e.ID
	if len(id) > 80 {
		id = id[:80] + "…"
	}
	return fmt.Sprintf("MessageId %q is not an SQS MessageId (letters, digits, - and _): nothing was searched", id)
}

// RangeOf is the time range a message's story should be in: from its
// SentTimestamp to its ApproximateFirstReceiveTimestamp, widened by margin
// on both sides (the consumer's last attempt comes up to maxReceiveCount
// visibility timeouts after the first). ok is false when the message has
// neither timestamp.
func RangeOf(m *sqsjson.Message, margin time.Duration) (w Range, ok bool) {
	sent, okS := m.SentTime()
	recv, okR := m.FirstReceiveTime()
	switch {
	case okS && okR:
		w = Range{From: sent, To: recv}
		if recv.Before(sent) {
			w = Range{From: recv, To: sent}
		}
	case okS:
		w = Range{From: sent, To: sent}
	case okR:
		w = Range{From: recv, To: recv}
	default:
		return Range{}, false
	}
	return Range{From: w.From.Add(-margin), To: w.To.Add(margin)}, true
}

// Pick chooses n messages to search for, spread across groups: first one
// message of each group (in the groups' order), then the rest in sample
// order. groups lists each group's message ids; ids not in samples are
// skipped, since only a sampled message has the timestamps of its range.
func Pick(samples []sqsjson.Message, groups [][]string, n int) []sqsjson.Message {
	byID := make(map[string]int, len(samples))
	for i := range samples {
		byID[samples[i].MessageId] = i
	}
	taken := map[string]bool{}
	picked := []sqsjson.Message{}
	take := func(i int) {
		if len(picked) < n && !taken[samples[i].MessageId] {
			taken[samples[i].MessageId] = true
			picked = append(picked, samples[i])
		}
	}
	for _, g := range groups {
		for _, id := range g {
			if i, ok := byID[id]; ok && !taken[id] {
				take(i)
				break
			}
		}
	}
	for i := range samples {
		take(i)
	}
	return picked
}

// Targets turns the messages to search for into targets with their ranges:
// ids when given (each with its sample's timestamps when sampled), else n of
// samples picked across groups. A message with no timestamps gets the last
// since before now; untimed lists those.
func Targets(samples []sqsjson.Message, ids []string, groups [][]string, n int, margin, since time.Duration, now time.Time) (targets []Wanted, untimed []string) {
	var msgs []sqsjson.Message
	if len(ids) > 0 {
		byID := make(map[string]int, len(samples))
		for i := range samples {
			byID[samples[i].MessageId] = i
		}
		for _, id := range ids {
			m := sqsjson.Message{MessageId: id}
			if i, ok := byID[id]; ok {
				m = samples[i]
			}
			msgs = append(msgs, m)
		}
	} else {
		msgs = Pick(samples, groups, n)
	}
	targets = make([]Wanted, 0, len(msgs))
	for i := range msgs {
		w, ok := RangeOf(&msgs[i], margin)
		if !ok {
			untimed = append(untimed, msgs[i].MessageId)
			w = Range{From: now.Add(-since), To: now}
		}
		targets = append(targets, Wanted{MessageID: msgs[i].MessageId, RequestID: envelopeRequestID(&msgs[i]), Range: w})
	}
	return targets, untimed
}

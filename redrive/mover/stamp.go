package mover

import (
	"strconv"

	"github.com/mfdlq/mfdlq/redrive/provenance"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// stampAll gives each of msgs, on its way to dest, this run's provenance
// stamp: a copy whose attributes carry it in place of any earlier one, or,
// where it does not fit, the message as it was. The result of each, by
// MessageId, is counted once the message is sent (nil: no stamp).
func (m *Mover) stampAll(dest *sqsapi.Queue, msgs []sqsjson.Message) ([]sqsjson.Message, map[string]provenance.Result) {
	s := m.o.Stamp
	carrier, ok := m.o.Target.(AttributeTarget)
	if s == nil || (m.o.Target != nil && !ok) {
		return msgs, nil
	}
	limit := maxBytes(dest)
	out := make([]sqsjson.Message, len(msgs))
	res := make(map[string]provenance.Result, len(msgs))
	for i, msg := range msgs {
		attrs, body := msg.MessageAttributes, len(msg.Body)
		if carrier != nil {
			attrs, body = carrier.Carried(&msg)
		}
		v := s.Value(msg.MessageId)
		r := provenance.Fits(attrs, body, v, limit)
		if r == provenance.Stamped {
			msg.MessageAttributes = provenance.Set(msg.MessageAttributes, v)
		}
		out[i], res[msg.MessageId] = msg, r
	}
	return out, res
}

// maxBytes is the largest message dest takes: a queue's
// MaximumMessageSize (up to 1 MiB since 2025, 256 KiB by default), else
// provenance's default (a topic's 256 KiB, or a queue not read).
func maxBytes(dest *sqsapi.Queue) int {
	if n, err := strconv.Atoi(dest.Attributes["MaximumMessageSize"]); err == nil && n > 0 {
		return n
	}
	return provenance.DefaultMaxBytes
}

package cmdutil

import (
	"context"

	"github.com/mfdlq/mfdlq/inventory"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// OldestExpiry is inventory.OldestExpiry with the command's CloudWatch
// client and clock: a CloudWatch failure is a warning, never the step's
// failure.
func (d *Deps) OldestExpiry(ctx context.Context, q *sqsapi.Queue, msgs []sqsjson.Message) *sqsapi.Expiry {
	var cw inventory.Metrics
	if c, err := d.CloudWatch(ctx); err == nil {
		cw = c
	}
	e, err := inventory.OldestExpiry(ctx, cw, q, msgs, d.Now())
	if err != nil && ctx.Err() == nil {
		d.Warnf("when %s's oldest message expires: %v", q.Name, err)
	}
	return e
}

// ShowExpiry states the countdown of a DLQ holding messages and, under a
// day, warns and names what saves the messages: an export, and a longer
// retention.
func (d *Deps) ShowExpiry(q *sqsapi.Queue, e *sqsapi.Expiry) {
	if q.Depth.Total() == 0 {
		return
	}
	if e == nil {
		d.Infof("%s: when the oldest message expires is unknown (no CloudWatch age of oldest); retention %s", q.Name, sqsapi.Human(q.Retention))
		return
	}
	now := d.Now()
	d.Infof("%s: %s", q.Name, e.Countdown(now))
	if left := e.In(now); left < sqsapi.RetentionApplyDelay {
		// SQS takes up to 15 minutes to apply a new MessageRetentionPeriod:
		// with less left, only an export is sure to save the messages.
		d.Warnf("%s's messages start to expire in %s, sooner than SQS applies a new retention (up to 15 min): archive them now — mfdlq export --queue %s --out %s.jsonl.gz",
			q.Name, sqsapi.Human(max(left, 0)), q.Name, q.Name)
	} else if left < sqsapi.Urgent {
		d.Warnf("%s's messages start to expire in %s: archive them first — mfdlq export --queue %s --out %s.jsonl.gz — and raise its retention to 14 days: aws sqs set-queue-attributes --queue-url %s --attributes MessageRetentionPeriod=1209600",
			q.Name, sqsapi.Human(max(e.In(now), 0)), q.Name, q.Name, q.URL)
	}
}

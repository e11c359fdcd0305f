package target

import (
	"context"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	ebtypes "github.com/aws/aws-sdk-go-v2/service/eventbridge/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/awserr"
	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// EventsTarget puts each message's EventBridge event on a bus again: its
// source, detail-type, detail (the exact bytes), resources and time.
type EventsTarget struct {
	c   EventsAPI
	bus string
}

// NewEventsTarget puts events on bus (a name or ARN).
func NewEventsTarget(c EventsAPI, bus string) *EventsTarget {
	return &EventsTarget{c: c, bus: bus}
}

// Send puts the pending messages' events with one PutEvents call. Its
// answer lists one result per entry, in order; FailedEntryCount > 0 means
// some carry an ErrorCode, handled as SendMessageBatch's Failed entries.
func (t *EventsTarget) Send(ctx context.Context, chunk []sqsjson.Message, pending []int) (map[string]string, []types.BatchResultErrorEntry, error) {
	var failed []types.BatchResultErrorEntry
	var ids []string
	entries := make([]ebtypes.PutEventsRequestEntry, 0, len(pending))
	for _, i := range pending {
		id := strconv.Itoa(i)
		o := envelope.Detect(&chunk[i]).Origin().EventBridge
		if o == nil {
			failed = append(failed, refused(id, "NotAnEvent", "the message holds no EventBridge event: PutEvents needs its source, detail-type and detail", true))
			continue
		}
		e := ebtypes.PutEventsRequestEntry{
			EventBusName: aws.String(t.bus), Source: aws.String(o.Source), DetailType: aws.String(o.DetailType),
			Detail: aws.String(string(o.Detail)), Resources: o.Resources,
		}
		if ts, err := time.Parse(time.RFC3339, o.Time); err == nil {
			e.Time = aws.Time(ts)
		}
		entries = append(entries, e)
		ids = append(ids, id)
	}
	if len(entries) == 0 {
		return map[string]string{}, failed, nil
	}
	out, err := t.c.PutEvents(ctx, &eventbridge.PutEventsInput{Entries: entries}, noEventsRetry)
	if err != nil {
		return nil, nil, err
	}
	done := make(map[string]string, len(ids))
	for j, id := range ids {
		if j >= len(out.Entries) {
			// An answer shorter than the request: the missing ones are
			// unknown, so they are tried again (at least once).
			failed = append(failed, refused(id, "InternalFailure", "no result for this entry", false))
			continue
		}
		r := out.Entries[j]
		if code := aws.ToString(r.ErrorCode); code != "" {
			failed = append(failed, refused(id, code, aws.ToString(r.ErrorMessage), !awserr.RetryableCode(code))) // EventBridge documents InternalFailure, ThrottlingException, InternalException as retryable
			continue
		}
		done[id] = aws.ToString(r.EventId)
	}
	return done, failed, nil
}

// noEventsRetry makes one SDK call one attempt, as retry.NoSDK does for SQS.
func noEventsRetry(o *eventbridge.Options) { o.RetryMaxAttempts = 1 }

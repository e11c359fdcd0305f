package target

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	ltypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/redrive/retry"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// LambdaTarget invokes a function asynchronously (InvocationType Event), as
// the original invocation was: the function's own retries, DLQ and
// destinations apply again.
type LambdaTarget struct {
	c LambdaAPI
	// function is the name or ARN invoked, with its version or alias.
	function string
	// subscription is, for an SNS subscriber, the subscription whose
	// event the function is invoked with (SNSEvent); "" for any other.
	subscription string
}

// NewLambdaTarget invokes function (a name or ARN, qualified or not).
func NewLambdaTarget(c LambdaAPI, function string) *LambdaTarget {
	return &LambdaTarget{c: c, function: function}
}

// NewSNSSubscriberTarget invokes function as SNS invokes it for
// subscription: with each notification inside SNS's Lambda event.
func NewSNSSubscriberTarget(c LambdaAPI, function, subscription string) *LambdaTarget {
	return &LambdaTarget{c: c, function: function, subscription: subscription}
}

// MaxAsyncPayload is the most an asynchronous Invoke takes: "For
// asynchronous invocations, the maximum payload size is 1 MB" (Invoke, the
// Lambda API reference; 256 KB before 2025, which was 262,144 bytes, so 1
// MB is taken as 1,048,576). A bigger payload is refused before the call,
// as Lambda would refuse it (RequestTooLargeException).
const MaxAsyncPayload = 1 << 20

// messageFaults are the Invoke errors about one payload, not the function:
// that message fails, the others go on.
var messageFaults = map[string]bool{
	"RequestTooLargeException": true, "InvalidRequestContentException": true, "UnsupportedMediaTypeException": true,
}

// Send invokes the function once per pending message, all at once (at
// most ten). Throttling (429) and server errors stay pending and are
// retried with the mover's policy; a refusal of the function itself (no
// permission, no such function) fails the call when nothing was accepted,
// so the run stops as it does for a queue that refuses every send.
func (t *LambdaTarget) Send(ctx context.Context, chunk []sqsjson.Message, pending []int) (map[string]string, []types.BatchResultErrorEntry, error) {
	type result struct {
		id, requestID string
		err           error
	}
	results := make([]result, len(pending))
	var wg sync.WaitGroup
	for j, i := range pending {
		payload, err := t.payload(&chunk[i])
		if err == nil && len(payload) > MaxAsyncPayload {
			err = &tooLargeError{size: len(payload)}
		}
		if err != nil {
			results[j] = result{id: strconv.Itoa(i), err: err}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			rid, err := t.invoke(ctx, payload)
			results[j] = result{id: strconv.Itoa(i), requestID: rid, err: err}
		}()
	}
	wg.Wait()
	done := map[string]string{}
	var failed []types.BatchResultErrorEntry
	var fatal error
	for _, r := range results {
		code := errorCode(r.err)
		var notSNS *notNotificationError
		var tooLarge *tooLargeError
		switch {
		case errors.As(r.err, &notSNS):
			failed = append(failed, refused(r.id, "InvalidMessage", r.err.Error(), true))
		case errors.As(r.err, &tooLarge):
			failed = append(failed, refused(r.id, "RequestTooLargeException", r.err.Error(), true))
		case r.err == nil:
			done[r.id] = r.requestID
		case retry.Retryable(r.err):
			failed = append(failed, refused(r.id, code, r.err.Error(), false))
		case messageFaults[code]:
			failed = append(failed, refused(r.id, code, r.err.Error(), true))
		default:
			fatal = r.err
			failed = append(failed, refused(r.id, code, r.err.Error(), true))
		}
	}
	if fatal != nil && len(done) == 0 {
		return nil, nil, fatal
	}
	return done, failed, nil
}

// invoke makes one asynchronous invocation and returns its request id:
// the RequestID a lambda-async DLQ message carries if it fails again.
func (t *LambdaTarget) invoke(ctx context.Context, payload []byte) (string, error) {
	out, err := t.c.Invoke(ctx, &lambda.InvokeInput{
		FunctionName:   aws.String(t.function),
		InvocationType: ltypes.InvocationTypeEvent,
		Payload:        payload,
	}, noLambdaRetry)
	if err != nil {
		return "", err
	}
	rid, _ := awsmiddleware.GetRequestIDMetadata(out.ResultMetadata)
	return rid, nil
}

// payload is what m is invoked with: SNS's event for a subscriber,
// LambdaPayload for any other function.
func (t *LambdaTarget) payload(m *sqsjson.Message) ([]byte, error) {
	if t.subscription != "" {
		return SNSEvent(m, t.subscription)
	}
	return LambdaPayload(m), nil
}

// LambdaPayload is what the function is invoked with again: a destination
// record's requestPayload, exactly as it was; otherwise the body, which is
// the event itself for a function's DeadLetterConfig queue and for an
// EventBridge rule target's DLQ.
func LambdaPayload(m *sqsjson.Message) []byte {
	if envelope.Detect(m).Kind == envelope.KindLambdaDestination {
		var rec struct {
			RequestPayload json.RawMessage `json:"requestPayload"`
		}
		if json.Unmarshal([]byte(m.Body), &rec) == nil && len(rec.RequestPayload) > 0 {
			return rec.RequestPayload
		}
	}
	return []byte(m.Body)
}

// noLambdaRetry makes one SDK call one attempt, as retry.NoSDK does for SQS.
func noLambdaRetry(o *lambda.Options) { o.RetryMaxAttempts = 1 }

// tooLargeError is a payload over MaxAsyncPayload: that message fails,
// with no call made.
type tooLargeError struct{ size int }

func (e *tooLargeError) Error() string {
	return "payload of " + strconv.Itoa(e.size) + " bytes is over asynchronous Invoke's limit of " + strconv.Itoa(MaxAsyncPayload) + " bytes (1 MB)"
}

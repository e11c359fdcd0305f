package mover

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"

	"github.com/mfdlq/mfdlq/redrive/journal"
	"github.com/mfdlq/mfdlq/redrive/retry"
	"github.com/mfdlq/mfdlq/redrive/target"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

const topicARN = "arn:aws:sns:us-east-1:123456789012:orders"

// fakeTarget records what it accepted; fault may refuse a message.
type fakeTarget struct {
	mu    sync.Mutex
	got   []string // accepted bodies
	calls int
	fault func(body string, call int) *types.BatchResultErrorEntry
}

func (f *fakeTarget) Send(_ context.Context, chunk []sqsjson.Message, pending []int) (map[string]string, []types.BatchResultErrorEntry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	done := map[string]string{}
	var failed []types.BatchResultErrorEntry
	for _, i := range pending {
		id := strconv.Itoa(i)
		if f.fault != nil {
			if e := f.fault(chunk[i].Body, f.calls); e != nil {
				e.Id = aws.String(id)
				failed = append(failed, *e)
				continue
			}
		}
		f.got = append(f.got, chunk[i].Body)
		done[id] = fmt.Sprintf("t-%d", len(f.got))
	}
	return done, failed, nil
}

// snsBody is an SNS notification of message as it lands in a DLQ.
func snsBody(id, message string) string {
	b, _ := json.Marshal(map[string]string{"Type": "Notification", "MessageId": id, "TopicArn": topicARN,
		"Message": message, "Timestamp": "2025-03-02T03:00:00.000Z", "SignatureVersion": "1", "Signature": "x",
		"SigningCertURL": "https://sns.us-east-1.amazonaws.com/c.pem", "UnsubscribeURL": "https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe"})
	return string(b)
}

func targetSetup(t *testing.T, n int) (*setup, *fakeTarget) {
	s := &setup{fake: newFake(), journal: t.TempDir() + "/redrive-journal.jsonl"}
	for i := range n {
		b := snsBody(fmt.Sprintf("sns-%d", i), fmt.Sprintf(`{"order_id":"o-%02d"}`, i))
		s.bodies = append(s.bodies, b)
		s.fake.put(dlqURL, b, nil)
	}
	return s, &fakeTarget{}
}

func toTarget(tg Target) func(*Options) {
	return func(o *Options) {
		o.Target = tg
		o.Dest = &sqsapi.Queue{Name: "sns:orders", URL: topicARN}
	}
}

func TestTargetMoveJournalsPayload(t *testing.T) {
	s, tg := targetSetup(t, 23)
	st := s.run(t, toTarget(tg))
	if st.Moved != 23 || len(tg.got) != 23 || len(s.fake.bodies(dlqURL)) != 0 {
		t.Fatalf("stats %+v, target got %d, DLQ %d", st, len(tg.got), len(s.fake.bodies(dlqURL)))
	}
	entries, _ := journal.ReadEntries(s.journal)
	hashes := map[string]bool{}
	for _, e := range entries {
		if e.Op == journal.OpSent {
			if e.DestQueue != topicARN || len(e.PayloadSHA256) != 64 || e.DestMessageID == "" {
				t.Fatalf("sent entry %+v", e)
			}
			hashes[e.PayloadSHA256] = true
		}
	}
	if len(hashes) != 23 {
		t.Fatalf("%d distinct payload hashes, want 23", len(hashes))
	}
	// A rerun sends nothing again.
	if st := s.run(t, toTarget(tg)); st.Moved != 0 || len(tg.got) != 23 {
		t.Fatalf("rerun %+v, target got %d", st, len(tg.got))
	}
}

// A message that fails again comes back with a new MessageId and a new
// envelope around the same payload: the breaker sees it by the payload's
// hash. A duplicate that sat in the DLQ before the send is not a return.
func TestTargetReturnsByPayload(t *testing.T) {
	s, tg := targetSetup(t, 3)
	dup := s.fake.put(dlqURL, snsBody("sns-dup", `{"order_id":"o-00"}`), nil)
	backdate(s.fake, dup, time.Hour)
	for _, m := range s.fake.queues[dlqURL] {
		backdate(s.fake, m.id, time.Hour)
	}
	if st := s.run(t, toTarget(tg)); st.Moved != 4 || st.Returned != 0 {
		t.Fatalf("first run %+v: the duplicate is not a return", st)
	}
	// Two come back, re-wrapped and compacted differently.
	s.fake.put(dlqURL, snsBody("sns-new-1", `{"order_id":"o-01"}`), nil)
	s.fake.put(dlqURL, snsBody("sns-new-2", `{ "order_id" : "o-02" }`), nil)
	s.fake.put(dlqURL, snsBody("sns-new-3", `{"order_id":"o-99"}`), nil)
	st := s.run(t, func(o *Options) { toTarget(tg)(o); o.MaxReturned = 2 })
	if st.Returned != 2 || st.Halted == "" {
		t.Fatalf("second run %+v: want 2 returned and the breaker tripped", st)
	}
}

func backdate(f *fakeSQS, id string, by time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, m := range f.queues[dlqURL] {
		if m.id == id {
			m.sys["SentTimestamp"] = strconv.FormatInt(time.Now().Add(-by).UnixMilli(), 10)
		}
	}
}

// Throttled entries are retried; a final refusal leaves the message in the
// DLQ, journaled failed.
func TestTargetRetriesAndFailures(t *testing.T) {
	s, tg := targetSetup(t, 10)
	tg.fault = func(body string, call int) *types.BatchResultErrorEntry {
		switch {
		case body == s.bodies[3]:
			return &types.BatchResultErrorEntry{Code: aws.String("InvalidParameter"), SenderFault: true}
		case call == 1:
			return &types.BatchResultErrorEntry{Code: aws.String("Throttled")}
		}
		return nil
	}
	st := s.run(t, func(o *Options) {
		toTarget(tg)(o)
		o.Retry = &retry.Policy{MaxAttempts: 6, Base: time.Millisecond, Cap: time.Millisecond, Budget: 1, BudgetFloor: 100}
	})
	if st.Moved != 9 || st.Failed != 1 || len(tg.got) != 9 {
		t.Fatalf("stats %+v, target got %d", st, len(tg.got))
	}
	if left := s.fake.bodies(dlqURL); len(left) != 1 || left[0] != s.bodies[3] {
		t.Fatalf("DLQ holds %d", len(left))
	}
}

// fakeLambda answers Invoke by payload.
type fakeLambda struct{ answer func(payload string) error }

func (f *fakeLambda) Invoke(_ context.Context, in *lambda.InvokeInput, _ ...func(*lambda.Options)) (*lambda.InvokeOutput, error) {
	if err := f.answer(string(in.Payload)); err != nil {
		return nil, err
	}
	return &lambda.InvokeOutput{StatusCode: 202}, nil
}

// A payload over asynchronous Invoke's 1 MB is refused before the call
// (that message fails, final); one of 900 KiB is invoked.
func TestLambdaTargetRefusesOver1MB(t *testing.T) {
	var called []int
	tg := target.NewLambdaTarget(&fakeLambda{answer: func(p string) error { called = append(called, len(p)); return nil }}, "orders")
	chunk := []sqsjson.Message{{Body: `"` + strings.Repeat("x", 900<<10) + `"`}, {Body: `"` + strings.Repeat("x", target.MaxAsyncPayload) + `"`}}
	done, failed, err := tg.Send(context.Background(), chunk, []int{0, 1})
	if err != nil || len(done) != 1 || len(failed) != 1 || !failed[0].SenderFault || *failed[0].Code != "RequestTooLargeException" || len(called) != 1 {
		t.Fatalf("done %v failed %+v err %v calls %v", done, failed, err, called)
	}
}

func TestLambdaTargetSorts(t *testing.T) {
	apiErr := func(code string) error { return &smithy.GenericAPIError{Code: code, Fault: smithy.FaultClient} }
	chunk := []sqsjson.Message{{Body: `{"a":1}`}, {Body: `{"a":2}`}, {Body: `{"a":3}`}}
	tg := target.NewLambdaTarget(&fakeLambda{answer: func(p string) error {
		switch p {
		case `{"a":2}`:
			return apiErr("TooManyRequestsException")
		case `{"a":3}`:
			return apiErr("RequestTooLargeException")
		}
		return nil
	}}, "orders")
	done, failed, err := tg.Send(context.Background(), chunk, []int{0, 1, 2})
	if err != nil || len(done) != 1 || len(failed) != 2 {
		t.Fatalf("done %v failed %v err %v", done, failed, err)
	}
	for _, f := range failed {
		if want := *f.Id == "2"; f.SenderFault != want {
			t.Fatalf("entry %s: SenderFault %v", *f.Id, f.SenderFault)
		}
	}
	// No such function for every message: the call fails, the run stops.
	tg = target.NewLambdaTarget(&fakeLambda{answer: func(string) error { return apiErr("ResourceNotFoundException") }}, "nope")
	if _, _, err := tg.Send(context.Background(), chunk, []int{0, 1}); err == nil || retry.Retryable(err) {
		t.Fatalf("want a final error, got %v", err)
	}
}

func TestLambdaPayload(t *testing.T) {
	rec := `{"version":"1.0","timestamp":"2025-03-02T03:00:00.000Z","requestContext":{"requestId":"r-1","functionArn":"arn:aws:lambda:us-east-1:123456789012:function:orders:$LATEST","condition":"RetriesExhausted","approximateInvokeCount":3},"requestPayload":{"order_id": "o-1"},"responseContext":{"statusCode":200,"executedVersion":"$LATEST","functionError":"Unhandled"},"responsePayload":{"errorMessage":"boom","errorType":"Error"}}`
	if got := string(target.LambdaPayload(&sqsjson.Message{Body: rec})); got != `{"order_id": "o-1"}` {
		t.Fatalf("destination record: payload %s", got)
	}
	if got := string(target.LambdaPayload(&sqsjson.Message{Body: `{"x":1}`})); got != `{"x":1}` {
		t.Fatalf("raw: payload %s", got)
	}
}

// A message the target keeps throttling is never counted as moved: it is
// failed once its retries run out, whether or not the run tried it again.
func TestTargetThrottledToTheEndIsFailed(t *testing.T) {
	s, tg := targetSetup(t, 12)
	tg.fault = func(body string, _ int) *types.BatchResultErrorEntry {
		if body == s.bodies[11] {
			return &types.BatchResultErrorEntry{Code: aws.String("Throttled")}
		}
		return nil
	}
	st := s.run(t, func(o *Options) {
		toTarget(tg)(o)
		o.Backlog = 12
		o.Retry = &retry.Policy{MaxAttempts: 2, Base: time.Millisecond, Cap: time.Millisecond, Budget: 1, BudgetFloor: 100}
	})
	if st.Moved != 11 || st.Failed != 1 {
		t.Fatalf("stats %+v: want 11 moved, 1 failed", st)
	}
	if left := s.fake.bodies(dlqURL); len(left) != 1 {
		t.Fatalf("DLQ holds %d, want 1", len(left))
	}
}

// A target throttles per entry (a Lambda Invoke, a PutEvents entry) while
// the call succeeds: the concurrency controller hears it as throttling, and
// a message's own refusal or a server error per entry is no throttling.
func TestEntryCongestion(t *testing.T) {
	entry := func(code string, sender bool) types.BatchResultErrorEntry {
		return types.BatchResultErrorEntry{Id: aws.String("0"), Code: aws.String(code), SenderFault: sender}
	}
	for _, tt := range []struct {
		failed []types.BatchResultErrorEntry
		want   string
	}{
		{nil, ""},
		{[]types.BatchResultErrorEntry{entry("TooManyRequestsException", false)}, "throttled"},
		{[]types.BatchResultErrorEntry{entry("RequestTooLargeException", true), entry("Throttled", false)}, "throttled"},
		{[]types.BatchResultErrorEntry{entry("ThrottlingException", false)}, "throttled"},
		{[]types.BatchResultErrorEntry{entry("InternalFailure", false)}, "fault"},
		{[]types.BatchResultErrorEntry{entry("InvalidParameter", true)}, ""},
	} {
		if got := congestion(entryCongestion(tt.failed)); got != tt.want {
			t.Errorf("%+v: congestion %q, want %q", tt.failed, got, tt.want)
		}
	}
}

package receipts

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/sqsapi"
)

func TestMain(m *testing.M) { os.Exit(localaws.Wrap(m).Run()) }

// refusing answers every visibility change with the code it is given.
type refusing struct {
	SQS
	code  string
	calls int
}

func (r *refusing) ChangeMessageVisibilityBatch(_ context.Context, in *sqs.ChangeMessageVisibilityBatchInput, _ ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error) {
	r.calls++
	out := &sqs.ChangeMessageVisibilityBatchOutput{}
	for _, e := range in.Entries {
		out.Failed = append(out.Failed, types.BatchResultErrorEntry{Id: e.Id, Code: aws.String(r.code), SenderFault: true})
	}
	return out, nil
}

// A release refused because the message is not in flight needs none; a
// refused handle (a lost receive took the message again) is missed, and
// so is any refusal of a hide.
func TestSetVisibilityCountsWhatIsMissed(t *testing.T) {
	msgs := make([]Message, 23)
	for i := range msgs {
		msgs[i] = Message{ID: fmt.Sprint(i), Handle: fmt.Sprint("h", i)}
	}
	ctx := context.Background()
	for _, tc := range []struct {
		code    string
		seconds int32
		missed  int
	}{{"AWS.SimpleQueueService.MessageNotInflight", 0, 0}, {"ReceiptHandleIsInvalid", 0, 23}, {"MessageNotInflight", 30, 23}} {
		r := &refusing{code: tc.code}
		if got := SetVisibility(ctx, r, "q", msgs, tc.seconds, nil); len(got) != tc.missed || r.calls != 3 {
			t.Errorf("%s at %d s: %d missed in %d calls, want %d in 3", tc.code, tc.seconds, len(got), r.calls, tc.missed)
		}
	}
}

// Through the SDK against the local AWS: messages held in the table are
// released with their latest handles (every one visible again at once),
// then received again, taken and deleted (the queue empty).
func TestReleaseAndDeleteAgainstLocalAWS(t *testing.T) {
	ctx := context.Background()
	cfg := localaws.Config(t)
	seed := localaws.NewSeeder(cfg)
	url, err := seed.CreateQueue(ctx, localaws.UniqueName("receipts"), nil)
	if err != nil {
		t.Fatal(err)
	}
	const n = 25
	bodies := make([]string, n)
	for i := range bodies {
		bodies[i] = fmt.Sprint(i)
	}
	if err := seed.Send(ctx, url, bodies, nil); err != nil {
		t.Fatal(err)
	}
	c := sqsapi.New(cfg)
	receiveAll := func(tb *Table) {
		t.Helper()
		for tries := 0; tb.Held() < n && tries < 20; tries++ {
			out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 10, VisibilityTimeout: 300})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range out.Messages {
				tb.See(*m.MessageId)
				tb.Hold(*m.MessageId, *m.ReceiptHandle)
			}
		}
		if tb.Held() != n {
			t.Fatalf("held %d, want %d", tb.Held(), n)
		}
	}
	tb := NewTable(n)
	receiveAll(tb)
	if inFlight, err := InFlight(ctx, c, url, nil); err != nil || inFlight != n {
		t.Fatalf("in flight %d (%v), want %d", inFlight, err, n)
	}
	if missed := Release(ctx, c, url, tb.HeldMessages(false), nil); len(missed) != 0 {
		t.Fatalf("%d not released", len(missed))
	}
	if visible, inFlight, err := seed.Depth(ctx, url); err != nil || visible != n || inFlight != 0 {
		t.Fatalf("after the release %d visible, %d in flight (%v); want %d and 0", visible, inFlight, err, n)
	}
	tb = NewTable(n)
	receiveAll(tb)
	for _, m := range tb.HeldMessages(false) {
		tb.Take(m.ID)
	}
	deleted := Delete(ctx, c, url, tb.HeldMessages(true), nil)
	if len(deleted) != n {
		t.Fatalf("deleted %d, want %d", len(deleted), n)
	}
	if visible, inFlight, err := seed.Depth(ctx, url); err != nil || visible+inFlight != 0 {
		t.Fatalf("after the delete %d visible, %d in flight (%v); want an empty queue", visible, inFlight, err)
	}
}

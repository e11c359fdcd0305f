package mover

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/mfdlq/mfdlq/redrive/provenance"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

func stampBatch() []sqsjson.Message {
	msgs := make([]sqsjson.Message, 10)
	for i := range msgs {
		msgs[i] = sqsjson.Message{MessageId: fmt.Sprintf("9b2c41f0-0000-4000-8000-%012d", i), Body: `{"order_id":"o-1","total":12.5}`,
			MessageAttributes: map[string]sqsjson.MessageAttributeValue{
				"ErrorCode": {DataType: "String", StringValue: aws.String("E42")},
				"tenant":    {DataType: "String", StringValue: aws.String("acme")},
			}}
	}
	return msgs
}

// stampAll stamps copies: the received messages' attribute maps (shared
// with the journal and the deletes) stay as they were; a target that
// carries no attributes gets none.
func TestStampAllCopies(t *testing.T) {
	msgs := stampBatch()
	m := &Mover{o: Options{Stamp: provenance.New("/x/inc", "r1", 1)}}
	out, res := m.stampAll(&sqsapi.Queue{}, msgs)
	for i := range msgs {
		if _, ok := msgs[i].MessageAttributes[provenance.Attribute]; ok {
			t.Fatal("stampAll changed a received message's attributes")
		}
		if provenance.Of(&out[i]) != "incident=inc run=r1 msg="+msgs[i].MessageId+" attempt=1" || res[msgs[i].MessageId] != provenance.Stamped {
			t.Fatalf("copy %d: %q, %v", i, provenance.Of(&out[i]), res[msgs[i].MessageId])
		}
	}
	m.o.Target = &fakeTarget{}
	if out, res := m.stampAll(&sqsapi.Queue{}, msgs); res != nil || provenance.Of(&out[0]) != "" {
		t.Fatal("a target without attributes was stamped")
	}
}

// BenchmarkStampAll is the stamp's cost on one batch of ten messages with
// two attributes each (the copy of each attribute map and the value).
func BenchmarkStampAll(b *testing.B) {
	msgs := stampBatch()
	m := &Mover{o: Options{Stamp: provenance.New("/x/orders-dlq-20261202T0400Z", "20261202T040501Z-ab12cd", 1)}}
	q := &sqsapi.Queue{Attributes: map[string]string{"MaximumMessageSize": "262144"}}
	b.ReportAllocs()
	for b.Loop() {
		m.stampAll(q, msgs)
	}
}

package redrive

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

// The --transform --dedupe path asks SQS (moto here, through the SDK) only
// for the system attributes the move reads; the message's group is one of
// them: a fair queue's tenants come back as they left, repaired.
func TestTransformDedupeKeepsFairQueueTenants(t *testing.T) {
	ctx := context.Background()
	req := Request{NoStamp: true, TransformProgram: `.version = 1`, TransformOrigin: "--transform", DedupeKey: `.order_id`}
	got, _, fig := limitsRun(t, "262144", req, func(s *localaws.Seeder, dlq string) {
		for i, tenant := range []string{"acme", "acme", "globex"} {
			_, err := s.SQS.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(dlq),
				MessageBody: aws.String(fmt.Sprintf(`{"order_id":"o-%d"}`, i)), MessageGroupId: aws.String(tenant)})
			if err != nil {
				t.Fatal(err)
			}
		}
	})
	want := map[string]string{`{"order_id":"o-0","version":1}`: "acme", `{"order_id":"o-1","version":1}`: "acme", `{"order_id":"o-2","version":1}`: "globex"}
	if fig.Moved != 3 || len(got) != 3 {
		t.Fatalf("moved %d, received %d: %v", fig.Moved, len(got), got)
	}
	for body, tenant := range want {
		if g := got[body].Attributes["MessageGroupId"]; g != tenant {
			t.Errorf("%s arrived in group %q, want %q", body, g, tenant)
		}
	}
}

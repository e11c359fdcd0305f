package sqslimits_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"

	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/internal/sqslimits"
	"github.com/mfdlq/mfdlq/sqsapi"
)

func TestMain(m *testing.M) { os.Exit(localaws.Wrap(m).Run()) }

func code(err error) string {
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode()
	}
	return ""
}

// A message whose body fits its queue's MaximumMessageSize but whose
// attributes tip it over: moto takes it (it weighs the body alone), SQS
// and the stand-in refuse it. A batch over 1 MiB in all is refused
// whatever each message weighs; under both, it goes through.
func TestWeighsAsSQS(t *testing.T) {
	ctx := context.Background()
	cfg := localaws.Config(t)
	seed := localaws.NewSeeder(cfg)
	small, err := seed.CreateQueue(ctx, localaws.UniqueName("small"), map[string]string{"MaximumMessageSize": "1024"})
	if err != nil {
		t.Fatal(err)
	}
	big, err := seed.CreateQueue(ctx, localaws.UniqueName("big"), map[string]string{"MaximumMessageSize": "1048576"})
	if err != nil {
		t.Fatal(err)
	}
	px, err := sqslimits.New(localaws.Endpoint(t), sqsapi.New(cfg))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(px)
	t.Cleanup(hs.Close)
	pcfg := cfg.Copy()
	pcfg.BaseEndpoint = aws.String(hs.URL)
	via := sqsapi.New(pcfg)
	over := &sqs.SendMessageInput{QueueUrl: aws.String(small), MessageBody: aws.String(strings.Repeat("x", 1000)),
		MessageAttributes: map[string]types.MessageAttributeValue{"mfdlq-redrive": {DataType: aws.String("String"), StringValue: aws.String(strings.Repeat("s", 60))}}}
	if _, err := seed.SQS.SendMessage(ctx, over); err != nil {
		t.Fatalf("moto refused what it should take (the leniency this stand-in is for): %v", err)
	}
	if _, err := via.SendMessage(ctx, over); code(err) != "InvalidParameterValue" {
		t.Fatalf("over its queue's limit with its attributes: %v, want InvalidParameterValue", err)
	}
	entry := func(id string, n int) types.SendMessageBatchRequestEntry {
		return types.SendMessageBatchRequestEntry{Id: aws.String(id), MessageBody: aws.String(strings.Repeat("y", n))}
	}
	_, err = via.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(big), Entries: []types.SendMessageBatchRequestEntry{entry("a", 600<<10), entry("b", 600<<10)}})
	if !strings.HasSuffix(code(err), "BatchRequestTooLong") { // the SDK gives the query-compatible code, as from SQS
		t.Fatalf("1.2 MiB in one batch: %v, want BatchRequestTooLong", err)
	}
	out, err := via.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(big), Entries: []types.SendMessageBatchRequestEntry{entry("a", 500<<10), entry("b", 500<<10)}})
	if err != nil || len(out.Successful) != 2 {
		t.Fatalf("1000 KiB in one batch: %v %+v", err, out)
	}
	if got := px.Refused(); len(got) != 2 || len(px.Batches()) != 1 || px.Batches()[0] != 2 {
		t.Errorf("refused %q, batches %v", got, px.Batches())
	}
}

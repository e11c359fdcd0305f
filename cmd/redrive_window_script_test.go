package cmd

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	dtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	ltypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	stypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

// idem-seed NAME OLD FRESH makes the idempotency window's world, against
// moto: the pair NAME / NAME-dlq, the function NAME-consumer reading NAME
// with POWERTOOLS_IDEMPOTENCY_TABLE=NAME-idempotency, that table
// (Powertools' shape, TTL on expiration) whose latest record expires one
// hour after the script's clock, and in the DLQ OLD messages first
// received before the clock's hour began and FRESH ones after. It sets
// MFDLQ_NOW to that clock: without waiting an hour, the OLD failed more
// than the one-hour window ago and the FRESH within it, by their first
// receive (whatever the load: the clock is T0 + 1h, the OLD were received
// before T0, the FRESH sent after it).
func cmdIdemSeed(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: idem-seed NAME OLD FRESH")
	}
	ctx := context.Background()
	cfg := scriptConfig(ts)
	name := args[0]
	old, err := strconv.Atoi(args[1])
	ts.Check(err)
	fresh, err := strconv.Atoi(args[2])
	ts.Check(err)
	srcURL, dlqURL, err := seeder(ts).CreatePair(ctx, name, name+"-dlq", 3)
	ts.Check(err)
	c := sqs.NewFromConfig(cfg)
	src, err := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(srcURL), AttributeNames: []stypes.QueueAttributeName{stypes.QueueAttributeNameQueueArn}})
	ts.Check(err)
	table := name + "-idempotency"
	arn, err := localaws.CreateFunction(ctx, cfg, name+"-consumer", localaws.HandlerZip("None"))
	ts.Check(err)
	l := lambda.NewFromConfig(cfg)
	_, err = l.UpdateFunctionConfiguration(ctx, &lambda.UpdateFunctionConfigurationInput{FunctionName: aws.String(arn),
		Environment: &ltypes.Environment{Variables: map[string]string{"POWERTOOLS_IDEMPOTENCY_TABLE": table}}})
	ts.Check(err)
	_, err = l.CreateEventSourceMapping(ctx, &lambda.CreateEventSourceMappingInput{EventSourceArn: aws.String(src.Attributes["QueueArn"]), FunctionName: aws.String(arn), Enabled: aws.Bool(false)})
	ts.Check(err)
	ts.Check(sendNumbered(ctx, c, dlqURL, "old", old))
	// The OLD's first receive, then T0 after it, then the FRESH.
	got, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(dlqURL), MaxNumberOfMessages: 10, VisibilityTimeout: 0})
	ts.Check(err)
	if len(got.Messages) != old {
		ts.Fatalf("idem-seed: received %d of the %d old messages", len(got.Messages), old)
	}
	for _, m := range got.Messages { // visible again at once (moto takes a receive's 0 as the default)
		_, err = c.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(dlqURL), ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 0})
		ts.Check(err)
	}
	t0 := time.Now().UTC().Truncate(time.Second).Add(time.Second)
	time.Sleep(time.Until(t0) + 50*time.Millisecond)
	ts.Check(sendNumbered(ctx, c, dlqURL, "fresh", fresh))
	clock := t0.Add(time.Hour)
	db := dynamodb.NewFromConfig(cfg)
	_, err = db.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(table), BillingMode: dtypes.BillingModePayPerRequest,
		AttributeDefinitions: []dtypes.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: dtypes.ScalarAttributeTypeS}},
		KeySchema:            []dtypes.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: dtypes.KeyTypeHash}}})
	ts.Check(err)
	_, err = db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(table),
		TimeToLiveSpecification: &dtypes.TimeToLiveSpecification{AttributeName: aws.String("expiration"), Enabled: aws.Bool(true)}})
	ts.Check(err)
	for i, e := range []time.Time{clock.Add(time.Hour), clock.Add(20 * time.Minute)} {
		_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]dtypes.AttributeValue{
			"id": &dtypes.AttributeValueMemberS{Value: fmt.Sprintf("cobro:o-%d", i)}, "status": &dtypes.AttributeValueMemberS{Value: "COMPLETED"},
			"expiration": &dtypes.AttributeValueMemberN{Value: strconv.FormatInt(e.Unix(), 10)}}})
		ts.Check(err)
	}
	ts.Setenv("MFDLQ_NOW", clock.Format(time.RFC3339))
}

// sendNumbered sends n bodies {"order_id":"KIND-i"} to url.
func sendNumbered(ctx context.Context, c *sqs.Client, url, kind string, n int) error {
	for i := range n {
		if _, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(fmt.Sprintf(`{"order_id":"%s-%d"}`, kind, i+1))}); err != nil {
			return err
		}
	}
	return nil
}

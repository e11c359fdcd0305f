package cmd

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
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

// consumer-seed QUEUE FUNCTION TABLE [batch-failures] [cap=N] [ttl]
// [window=D] [age-alarm] creates FUNCTION with IDEMPOTENCY_TABLE=TABLE in
// its environment and a mapping from QUEUE to it (batches of 10;
// ReportBatchItemFailures and a MaximumConcurrency when asked), TABLE in
// Powertools' shape with one record expiring D (default 1h) after the
// script's clock ($MFDLQ_NOW, else now) and TTL on expiration when asked,
// and with age-alarm an alarm with an action on QUEUE's
// ApproximateAgeOfOldestMessage. It sets $UUID to the mapping's UUID.
func cmdConsumerSeed(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 3 {
		ts.Fatalf("usage: consumer-seed QUEUE FUNCTION TABLE [batch-failures] [cap=N] [ttl]")
	}
	ctx := context.Background()
	cfg := scriptConfig(ts)
	in := &lambda.CreateEventSourceMappingInput{BatchSize: aws.Int32(10)}
	ttl, window := false, time.Hour
	for _, a := range args[3:] {
		switch {
		case a == "age-alarm":
			_, err := scriptCW(ts).PutMetricAlarm(ctx, &cloudwatch.PutMetricAlarmInput{AlarmName: aws.String(args[0] + "-oldest"), Namespace: aws.String("AWS/SQS"),
				MetricName: aws.String("ApproximateAgeOfOldestMessage"), Dimensions: []cwtypes.Dimension{{Name: aws.String("QueueName"), Value: aws.String(args[0])}},
				Statistic: cwtypes.StatisticMaximum, Period: aws.Int32(300), EvaluationPeriods: aws.Int32(1), Threshold: aws.Float64(900),
				ComparisonOperator: cwtypes.ComparisonOperatorGreaterThanThreshold, AlarmActions: []string{"arn:aws:sns:us-east-1:123456789012:oncall"}})
			ts.Check(err)
		case len(a) > 7 && a[:7] == "window=":
			var err error
			window, err = time.ParseDuration(a[7:])
			ts.Check(err)
		case a == "batch-failures":
			in.FunctionResponseTypes = []ltypes.FunctionResponseType{ltypes.FunctionResponseTypeReportBatchItemFailures}
		case a == "ttl":
			ttl = true
		case len(a) > 4 && a[:4] == "cap=":
			n, err := strconv.Atoi(a[4:])
			ts.Check(err)
			in.ScalingConfig = &ltypes.ScalingConfig{MaximumConcurrency: aws.Int32(int32(n))}
		default:
			ts.Fatalf("consumer-seed: unknown option %q", a)
		}
	}
	arn, err := localaws.CreateFunction(ctx, cfg, args[1], localaws.HandlerZip("None"))
	ts.Check(err)
	l := lambda.NewFromConfig(cfg)
	_, err = l.UpdateFunctionConfiguration(ctx, &lambda.UpdateFunctionConfigurationInput{FunctionName: aws.String(arn),
		Environment: &ltypes.Environment{Variables: map[string]string{"IDEMPOTENCY_TABLE": args[2]}}})
	ts.Check(err)
	s := seeder(ts)
	u, err := s.SQS.GetQueueUrl(ctx, getURL(args[0]))
	ts.Check(err)
	qarn, err := s.Attribute(ctx, *u.QueueUrl, "QueueArn")
	ts.Check(err)
	in.EventSourceArn, in.FunctionName = aws.String(qarn), aws.String(arn)
	m, err := l.CreateEventSourceMapping(ctx, in)
	ts.Check(err)
	ts.Setenv("UUID", aws.ToString(m.UUID))
	clock := time.Now()
	if t, err := time.Parse(time.RFC3339, ts.Getenv("MFDLQ_NOW")); err == nil {
		clock = t
	}
	db := dynamodb.NewFromConfig(cfg)
	_, err = db.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(args[2]), BillingMode: dtypes.BillingModePayPerRequest,
		AttributeDefinitions: []dtypes.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: dtypes.ScalarAttributeTypeS}},
		KeySchema:            []dtypes.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: dtypes.KeyTypeHash}}})
	ts.Check(err)
	if ttl {
		_, err = db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(args[2]),
			TimeToLiveSpecification: &dtypes.TimeToLiveSpecification{AttributeName: aws.String("expiration"), Enabled: aws.Bool(true)}})
		ts.Check(err)
	}
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(args[2]), Item: map[string]dtypes.AttributeValue{
		"id": &dtypes.AttributeValueMemberS{Value: "cobro:o-1"}, "status": &dtypes.AttributeValueMemberS{Value: "COMPLETED"},
		"expiration": &dtypes.AttributeValueMemberN{Value: strconv.FormatInt(clock.Add(window).Unix(), 10)}}})
	ts.Check(err)
}

package cmd

import (
	"context"
	"net/http/httptest"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/internal/movetasks"
	"github.com/mfdlq/mfdlq/redrive/lease"
)

// The script commands of redrive's safety checks on a live account: a
// paused consumer, a console redrive running alongside.

// s3-lease BUCKET KEY HOST EXPIRES_IN writes an S3 lease object as another
// operator's redrive would (alice, pid 4242, run r-other) expiring
// EXPIRES_IN from now. ! s3-lease BUCKET KEY asserts there is none.
func cmdS3Lease(ts *testscript.TestScript, neg bool, args []string) {
	ctx := context.Background()
	if neg {
		if len(args) != 2 {
			ts.Fatalf("usage: ! s3-lease BUCKET KEY")
		}
		h, _, ok, err := lease.CurrentS3(ctx, scriptS3(ts), args[0], args[1])
		ts.Check(err)
		if ok {
			ts.Fatalf("s3://%s/%s still holds a lease: %s", args[0], args[1], h.Describe())
		}
		return
	}
	if len(args) != 4 {
		ts.Fatalf("usage: s3-lease BUCKET KEY HOST EXPIRES_IN")
	}
	in, err := time.ParseDuration(args[3])
	ts.Check(err)
	now := time.Now().UTC()
	h := lease.Holder{Operator: "alice", Host: args[2], PID: 4242, Run: "r-other", Since: now.Add(-time.Minute), Expires: now.Add(in)}
	_, err = scriptS3(ts).PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(args[0]), Key: aws.String(args[1]), Body: strings.NewReader(h.String())})
	ts.Check(err)
}

// lambda-pause UUID disables a mapping, as contain --pause-mapping or the
// console does (moto then invokes nothing for that queue).
func cmdLambdaPause(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: lambda-pause UUID")
	}
	_, err := scriptLambda(ts).UpdateEventSourceMapping(context.Background(), &lambda.UpdateEventSourceMappingInput{UUID: aws.String(args[0]), Enabled: aws.Bool(false)})
	ts.Check(err)
}

// movetasks puts the message-move-task stand-in in front of the local SQS
// for the rest of the script: it sets AWS_ENDPOINT_URL_SQS (which the SDK
// prefers to AWS_ENDPOINT_URL) and $SQSTASKS to it.
func cmdMoveTasks(ts *testscript.TestScript, neg bool, args []string) {
	cfg := scriptConfig(ts)
	srv, err := movetasks.New(ts.Getenv("AWS_ENDPOINT_URL"), sqs.NewFromConfig(cfg))
	ts.Check(err)
	hs := httptest.NewServer(srv)
	ts.Defer(hs.Close)
	ts.Setenv("AWS_ENDPOINT_URL_SQS", hs.URL)
	ts.Setenv("SQSTASKS", hs.URL)
}

// sqs-move-task DLQ RATE starts a message move task on DLQ through the
// stand-in (after movetasks), as a colleague's "Start DLQ redrive" in the
// console does.
func cmdSQSMoveTask(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || ts.Getenv("SQSTASKS") == "" {
		ts.Fatalf("usage: movetasks; sqs-move-task DLQ RATE")
	}
	rate, err := strconv.Atoi(args[1])
	ts.Check(err)
	ctx := context.Background()
	c := sqs.NewFromConfig(scriptConfig(ts), func(o *sqs.Options) { o.BaseEndpoint = aws.String(ts.Getenv("SQSTASKS")) })
	u, err := c.GetQueueUrl(ctx, getURL(args[0]))
	ts.Check(err)
	arn, err := localaws.NewSeeder(scriptConfig(ts)).Attribute(ctx, aws.ToString(u.QueueUrl), "QueueArn")
	ts.Check(err)
	_, err = c.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(arn), MaxNumberOfMessagesPerSecond: aws.Int32(int32(rate))})
	ts.Check(err)
}

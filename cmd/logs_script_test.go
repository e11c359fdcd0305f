package cmd

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
)

// sqs-send-id QUEUE BODY VAR sends one message and sets VAR to its MessageId.
func cmdSQSSendID(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: sqs-send-id QUEUE BODY VAR")
	}
	s := seeder(ts)
	ctx := context.Background()
	url, err := s.CreateQueue(ctx, args[0], nil)
	ts.Check(err)
	out, err := s.SQS.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(args[1])})
	ts.Check(err)
	ts.Setenv(args[2], aws.ToString(out.MessageId))
}

// logs-put GROUP STREAM FILE creates a log group (if new) and a stream on
// the local AWS and puts each line of FILE as one event, one millisecond
// apart ending now. ${VAR} in the lines is replaced by the script's VAR.
func cmdLogsPut(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: logs-put GROUP STREAM FILE")
	}
	// The same local AWS as the SQS seeder, through the plain SDK.
	so := seeder(ts).SQS.Options()
	c := cloudwatchlogs.New(cloudwatchlogs.Options{Region: so.Region, BaseEndpoint: so.BaseEndpoint, Credentials: so.Credentials})
	ctx := context.Background()
	_, err := c.CreateLogGroup(ctx, &cloudwatchlogs.CreateLogGroupInput{LogGroupName: aws.String(args[0])})
	var exists *types.ResourceAlreadyExistsException
	if err != nil && !errors.As(err, &exists) {
		ts.Fatalf("create log group: %v", err)
	}
	_, err = c.CreateLogStream(ctx, &cloudwatchlogs.CreateLogStreamInput{LogGroupName: aws.String(args[0]), LogStreamName: aws.String(args[1])})
	ts.Check(err)
	lines := strings.Split(strings.TrimRight(ts.ReadFile(args[2]), "\n"), "\n")
	start := time.Now().Add(-time.Duration(len(lines)) * time.Millisecond)
	evs := make([]types.InputLogEvent, len(lines))
	for i, l := range lines {
		l = os.Expand(l, func(k string) string {
			if v := ts.Getenv(k); v != "" {
				return v
			}
			return "$" + k
		})
		evs[i] = types.InputLogEvent{Message: aws.String(l), Timestamp: aws.Int64(start.Add(time.Duration(i) * time.Millisecond).UnixMilli())}
	}
	_, err = c.PutLogEvents(ctx, &cloudwatchlogs.PutLogEventsInput{LogGroupName: aws.String(args[0]), LogStreamName: aws.String(args[1]), LogEvents: evs})
	ts.Check(err)
}

// TestFlagGroupErrorIsUsage: cobra's own flag-group errors (logs'
// --log-file with --log-group) come before a command's RunE, and the root
// maps them to exit 2 as every usage error.
func TestFlagGroupErrorIsUsage(t *testing.T) {
	d, _, errOut := testDeps(t, false)
	if code := run(context.Background(), d, []string{"logs", "--queue", "q", "--log-group", "g", "--log-file", "f"}); code != cmdutil.ExitUsage {
		t.Fatalf("exit %d, want 2\nstderr:\n%s", code, errOut)
	}
}

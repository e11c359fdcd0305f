package scenario

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs/types"
)

// versionStory is what orders-consumer 1.7 logged for each attempt at a
// version-2 order.
func versionStory(id string) []string {
	return []string{
		fmt.Sprintf("ERROR orders-consumer failed to process message %s", id),
		"UnsupportedVersionError: unsupported version 2 (this consumer understands version 1)",
		"    at orders.parseOrder (orders/parse.go:41)",
		"    at orders.Handle (orders/handler.go:88)",
	}
}

// gatewayStory is what payments-consumer logged while the gateway was down.
func gatewayStory(id string) []string {
	return []string{
		fmt.Sprintf("ERROR payments-consumer failed to process message %s", id),
		"GatewayTimeoutError: payment gateway did not answer within 30000 ms (POST /v2/charges)",
		"    at payments.charge (payments/gateway.go:112)",
	}
}

// writeLogs creates the consumer's log group with one stream holding, for
// every message, an unrelated line and the failure's story, in time order
// within the last two minutes: after the messages were sent, so inside the
// window logs searches around each SentTimestamp, and never in the future.
func writeLogs(ctx context.Context, c *cloudwatchlogs.Client, group string, ids []string, story func(string) []string, r *rand.Rand) error {
	if _, err := c.CreateLogGroup(ctx, &cloudwatchlogs.CreateLogGroupInput{LogGroupName: aws.String(group)}); err != nil {
		var exists *types.ResourceAlreadyExistsException
		if !errors.As(err, &exists) {
			return err
		}
	}
	// Lambda names a stream by its day: today's, not a canned date beside
	// the demo's real times.
	stream := now().UTC().Format("2006/01/02") + "/[$LATEST]" + fmt.Sprintf("%08x", r.Uint32())
	if _, err := c.CreateLogStream(ctx, &cloudwatchlogs.CreateLogStreamInput{LogGroupName: aws.String(group), LogStreamName: aws.String(stream)}); err != nil {
		return err
	}
	start := now().Add(-2 * time.Minute)
	var events []types.InputLogEvent
	t := start
	for _, id := range ids {
		t = t.Add(time.Duration(r.Intn(400)+50) * time.Millisecond)
		events = append(events, types.InputLogEvent{Timestamp: aws.Int64(t.UnixMilli()), Message: aws.String(fmt.Sprintf("INFO request %08x started", r.Uint32()))})
		for _, line := range story(id) {
			t = t.Add(time.Millisecond)
			events = append(events, types.InputLogEvent{Timestamp: aws.Int64(t.UnixMilli()), Message: aws.String(line)})
		}
	}
	for i := 0; i < len(events); i += 1000 {
		if _, err := c.PutLogEvents(ctx, &cloudwatchlogs.PutLogEventsInput{
			LogGroupName: aws.String(group), LogStreamName: aws.String(stream), LogEvents: events[i:min(i+1000, len(events))],
		}); err != nil {
			return err
		}
	}
	return nil
}

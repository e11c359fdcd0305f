package cloudtrail

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/cloudtrail"
	"github.com/aws/aws-sdk-go-v2/service/cloudtrail/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"

	"github.com/mfdlq/mfdlq/sqsapi"
)

var now = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// client is the real SDK pointed at a fresh stand-in holding n events a
// minute apart before now, with no rate limit unless limit > 0.
func client(t *testing.T, n int, limit float64) (*Server, *cloudtrail.Client) {
	t.Helper()
	s := New()
	s.Now = func() time.Time { return now }
	s.Limit = 1000
	if limit > 0 {
		s.Limit = 2
	}
	for i := range n {
		s.Add(Event{EventName: "CreateLogStream", EventSource: "logs.amazonaws.com", EventTime: now.Add(-time.Duration(i+1) * time.Minute), Username: "worker"})
	}
	s.Add(Event{EventName: "GetFunction", EventSource: "lambda.amazonaws.com", EventTime: now.Add(-30 * time.Second), ReadOnly: "true", Username: "reader"})
	s.Add(Event{EventName: "UpdateFunctionCode20150331v2", EventSource: "lambda.amazonaws.com", EventTime: now.Add(-10 * time.Second), Username: "ci",
		Resources: []Resource{{ResourceType: "AWS::Lambda::Function", ResourceName: "orders-producer"}}, Region: "eu-west-1"})
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	// No retries of what the stand-in answers (the tests expect its errors),
	// but a 200 whose body read met the SDK's "use of closed network
	// connection" is read whole and tried again, as mfdlq's own CloudTrail
	// client does (it failed a CI run once as a test failure).
	c := cloudtrail.New(cloudtrail.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(hs.URL),
		Retryer:    retry.NewStandard(func(o *retry.StandardOptions) { o.Retryables = []retry.IsErrorRetryable{retry.RetryableError{}} }),
		APIOptions: []func(*middleware.Stack) error{sqsapi.AddReadWholeBody},
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "test", SecretAccessKey: "test"}, nil
		}),
	})
	return s, c
}

func code(err error) string {
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode()
	}
	return fmt.Sprint(err)
}

func TestLookupPagesNewestFirst(t *testing.T) {
	_, c := client(t, 120, 0)
	ctx := context.Background()
	in := &cloudtrail.LookupEventsInput{StartTime: aws.Time(now.Add(-3 * time.Hour)), EndTime: aws.Time(now),
		LookupAttributes: []types.LookupAttribute{{AttributeKey: types.LookupAttributeKeyReadOnly, AttributeValue: aws.String("false")}}}
	var got []types.Event
	pages := 0
	for {
		out, err := c.LookupEvents(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if len(out.Events) > MaxResults {
			t.Fatalf("page of %d events, more than %d", len(out.Events), MaxResults)
		}
		got = append(got, out.Events...)
		if out.NextToken == nil {
			break
		}
		in.NextToken = out.NextToken
	}
	// 120 writes of us-east-1; the read and the other region's event are left.
	if len(got) != 120 || pages != 3 {
		t.Fatalf("%d events in %d pages, want 120 in 3", len(got), pages)
	}
	for i := 1; i < len(got); i++ {
		if got[i].EventTime.After(*got[i-1].EventTime) {
			t.Fatalf("event %d is newer than event %d: want newest first", i, i-1)
		}
	}
	if got[0].CloudTrailEvent == nil || *got[0].ReadOnly != "false" {
		t.Fatalf("first event %+v: want its JSON record and ReadOnly false", got[0])
	}
}

func TestLookupRefusesWhatTheAPIRefuses(t *testing.T) {
	_, c := client(t, 5, 0)
	ctx := context.Background()
	two := []types.LookupAttribute{
		{AttributeKey: types.LookupAttributeKeyReadOnly, AttributeValue: aws.String("false")},
		{AttributeKey: types.LookupAttributeKeyEventSource, AttributeValue: aws.String("lambda.amazonaws.com")},
	}
	cases := []struct {
		name string
		in   cloudtrail.LookupEventsInput
		want string
	}{
		{"two attributes", cloudtrail.LookupEventsInput{LookupAttributes: two}, "InvalidLookupAttributesException"},
		{"unknown key", cloudtrail.LookupEventsInput{LookupAttributes: []types.LookupAttribute{{AttributeKey: "Colour", AttributeValue: aws.String("x")}}}, "InvalidLookupAttributesException"},
		{"51 a page", cloudtrail.LookupEventsInput{MaxResults: aws.Int32(51)}, "InvalidMaxResultsException"},
		{"start after end", cloudtrail.LookupEventsInput{StartTime: aws.Time(now), EndTime: aws.Time(now.Add(-time.Hour))}, "InvalidTimeRangeException"},
		{"91 days", cloudtrail.LookupEventsInput{StartTime: aws.Time(now.Add(-91 * 24 * time.Hour)), EndTime: aws.Time(now)}, "InvalidTimeRangeException"},
		{"forged token", cloudtrail.LookupEventsInput{NextToken: aws.String("bm9wZTox")}, "InvalidNextTokenException"},
	}
	for _, tc := range cases {
		_, err := c.LookupEvents(ctx, &tc.in)
		if got := code(err); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestNextTokenOnlyWithTheSameParameters(t *testing.T) {
	_, c := client(t, 60, 0)
	ctx := context.Background()
	out, err := c.LookupEvents(ctx, &cloudtrail.LookupEventsInput{MaxResults: aws.Int32(10)})
	if err != nil || out.NextToken == nil {
		t.Fatalf("first page: %v, token %v", err, out)
	}
	_, err = c.LookupEvents(ctx, &cloudtrail.LookupEventsInput{MaxResults: aws.Int32(10), NextToken: out.NextToken,
		LookupAttributes: []types.LookupAttribute{{AttributeKey: types.LookupAttributeKeyUsername, AttributeValue: aws.String("worker")}}})
	if code(err) != "InvalidNextTokenException" {
		t.Fatalf("token with other parameters: %v, want InvalidNextTokenException", err)
	}
}

func TestThrottlesPastTwoCallsASecond(t *testing.T) {
	s, c := client(t, 1, 2)
	ctx := context.Background()
	throttled := 0
	for range 6 {
		if _, err := c.LookupEvents(ctx, &cloudtrail.LookupEventsInput{}); code(err) == "ThrottlingException" {
			throttled++
		} else if err != nil {
			t.Fatal(err)
		}
	}
	if throttled < 3 || s.Calls().Throttled != throttled {
		t.Fatalf("%d of 6 back-to-back calls throttled (stand-in counts %d); want at least 3 past a burst of 2", throttled, s.Calls().Throttled)
	}
	s.ThrottleNext(1)
	time.Sleep(time.Second)
	if _, err := c.LookupEvents(ctx, &cloudtrail.LookupEventsInput{}); code(err) != "ThrottlingException" {
		t.Fatalf("after ThrottleNext(1): %v, want ThrottlingException", err)
	}
}

func TestLookupByAttribute(t *testing.T) {
	_, c := client(t, 3, 0)
	out, err := c.LookupEvents(context.Background(), &cloudtrail.LookupEventsInput{
		LookupAttributes: []types.LookupAttribute{{AttributeKey: types.LookupAttributeKeyEventSource, AttributeValue: aws.String("lambda.amazonaws.com")}}})
	if err != nil {
		t.Fatal(err)
	}
	// The read-only GetFunction; the deploy is in eu-west-1's history.
	if len(out.Events) != 1 || *out.Events[0].EventName != "GetFunction" {
		t.Fatalf("events %v: want only us-east-1's GetFunction", out.Events)
	}
}

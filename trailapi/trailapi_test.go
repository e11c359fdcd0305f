package trailapi

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudtrail"
	"github.com/aws/aws-sdk-go-v2/service/cloudtrail/types"
	"github.com/aws/smithy-go"

	"github.com/mfdlq/mfdlq/awserr"
)

// fakeTrail serves n events in pages, throttling the calls listed, and
// records what each call asked.
type fakeTrail struct {
	n        int
	throttle map[int]bool // call numbers (1-based) to throttle
	calls    []*cloudtrail.LookupEventsInput
}

func (f *fakeTrail) LookupEvents(_ context.Context, in *cloudtrail.LookupEventsInput, _ ...func(*cloudtrail.Options)) (*cloudtrail.LookupEventsOutput, error) {
	c := *in
	f.calls = append(f.calls, &c)
	if f.throttle[len(f.calls)] {
		return nil, &smithy.GenericAPIError{Code: "ThrottlingException", Message: "Rate exceeded"}
	}
	off := 0
	if in.NextToken != nil {
		fmt.Sscan(*in.NextToken, &off)
	}
	out := &cloudtrail.LookupEventsOutput{}
	t0 := time.Date(2026, 11, 29, 23, 0, 0, 0, time.UTC)
	for i := off; i < f.n && i < off+int(aws.ToInt32(in.MaxResults)); i++ {
		out.Events = append(out.Events, types.Event{EventId: aws.String(fmt.Sprint(i)), EventName: aws.String("CreateLogStream"),
			EventTime: aws.Time(t0.Add(-time.Duration(i) * time.Second)), ReadOnly: aws.String("false"),
			CloudTrailEvent: aws.String(`{"requestParameters":{"logGroupName":"/aws/lambda/x","limit":5}}`)})
	}
	if next := off + int(aws.ToInt32(in.MaxResults)); next < f.n {
		out.NextToken = aws.String(fmt.Sprint(next))
	}
	return out, nil
}

// countingPacer counts the waits instead of waiting.
type countingPacer struct{ waits int }

func (p *countingPacer) Wait(context.Context) error { p.waits++; return nil }

func noSleep(slept *[]time.Duration) Retry {
	return Retry{Attempts: 4, Backoff: time.Second, Sleep: func(_ context.Context, d time.Duration) error {
		*slept = append(*slept, d)
		return nil
	}}
}

func TestLookupAllPagesPacesAndRetriesThrottling(t *testing.T) {
	f := &fakeTrail{n: 120, throttle: map[int]bool{2: true, 3: true}}
	p := &countingPacer{}
	var slept []time.Duration
	res, err := LookupAll(context.Background(), f, p, noSleep(&slept), Lookup{Key: types.LookupAttributeKeyReadOnly, Value: "false"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Events) != 120 || res.Pages != 3 || res.Retries != 2 {
		t.Fatalf("%d events, %d pages, %d retries; want 120, 3, 2", len(res.Events), res.Pages, res.Retries)
	}
	// Every call, retried ones included, waited for the pacer.
	if p.waits != len(f.calls) || len(f.calls) != 5 {
		t.Fatalf("%d waits for %d calls, want 5 each", p.waits, len(f.calls))
	}
	if len(slept) != 2 || slept[0] != time.Second || slept[1] != 2*time.Second {
		t.Fatalf("backoff %v, want [1s 2s]", slept)
	}
	for i, c := range f.calls {
		if len(c.LookupAttributes) != 1 || aws.ToInt32(c.MaxResults) != PageSize {
			t.Fatalf("call %d: %d attributes, MaxResults %d; want 1 and %d", i+1, len(c.LookupAttributes), aws.ToInt32(c.MaxResults), PageSize)
		}
	}
	if !res.Events[0].Time.Before(res.Events[119].Time) {
		t.Fatal("events not oldest first")
	}
	if res.Events[0].Parameters["logGroupName"] != "/aws/lambda/x" || len(res.Events[0].Parameters) != 1 {
		t.Fatalf("parameters %v: want only the string ones", res.Events[0].Parameters)
	}
}

func TestLookupAllGivesUpAfterTheAttempts(t *testing.T) {
	f := &fakeTrail{n: 10, throttle: map[int]bool{1: true, 2: true, 3: true, 4: true}}
	var slept []time.Duration
	_, err := LookupAll(context.Background(), f, &countingPacer{}, noSleep(&slept), Lookup{}, nil)
	if err == nil || !awserr.Throttled(err) || len(f.calls) != 4 {
		t.Fatalf("err %v after %d calls: want the throttling error after 4", err, len(f.calls))
	}
}

func TestLookupAllStopsAtMaxEvents(t *testing.T) {
	f := &fakeTrail{n: 500}
	res, err := LookupAll(context.Background(), f, &countingPacer{}, DefaultRetry, Lookup{MaxEvents: 100}, nil)
	if err != nil || !res.Truncated || len(res.Events) != 100 || len(f.calls) != 2 {
		t.Fatalf("%d events in %d calls, truncated %v, %v", len(res.Events), len(f.calls), res.Truncated, err)
	}
}

func TestPacerIsPerAccountAndRegion(t *testing.T) {
	a, b, c := PacerFor("1", "us-east-1"), PacerFor("1", "us-east-1"), PacerFor("1", "eu-west-1")
	if a != b || a == c {
		t.Fatal("one pacer per account and region")
	}
	// Fewer than two calls a second: the third of three immediate calls
	// waits two intervals. In a synctest bubble the waits take no wall
	// time; the pacer is made in it (a key of its own, so -count=2 makes
	// a new one).
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		pacerRuns++
		p := PacerFor("test", fmt.Sprintf("pace-%d", pacerRuns))
		start := time.Now()
		for range 3 {
			if err := p.Wait(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if d := time.Since(start); d < 2*paceInterval {
			t.Fatalf("three calls in %s: more than one every %s", d, paceInterval)
		}
	})
}

// pacerRuns numbers TestPacerIsPerAccountAndRegion's runs.
var pacerRuns int

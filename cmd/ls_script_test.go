package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	"github.com/rogpeppe/go-internal/testscript"
)

// The script commands of ls: many queue pairs at once, a pinned clock and
// an age-of-oldest point relative to it.

// ls-order FILE Q1 Q2 … asserts that the DLQs of an ls JSON file are
// exactly Q1 Q2 … in that order.
func cmdLsOrder(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 {
		ts.Fatalf("usage: ls-order FILE Q...")
	}
	var res struct {
		DLQs []struct {
			Queue string `json:"queue"`
		} `json:"dlqs"`
	}
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[0])), &res))
	var got []string
	for _, d := range res.DLQs {
		got = append(got, d.Queue)
	}
	if strings.Join(got, " ") != strings.Join(args[1:], " ") {
		ts.Fatalf("DLQs in this order:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(args[1:], "\n"))
	}
}

// sqs-pairs PREFIX N creates N source/DLQ pairs PREFIX-00 → PREFIX-00-dlq …
func cmdSQSPairs(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: sqs-pairs PREFIX N")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	errs := make([]error, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			name := fmt.Sprintf("%s-%02d", args[0], i)
			_, _, errs[i] = seeder(ts).CreatePair(context.Background(), name, name+"-dlq", 3)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		ts.Check(err)
	}
}

// clock VAR [LATER DURATION] sets VAR to the current UTC minute (RFC
// 3339): run mfdlq with MFDLQ_NOW=$VAR and put metric points relative to
// it with cw-age. LATER, when given, is that minute plus DURATION.
func cmdClock(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 && len(args) != 3 {
		ts.Fatalf("usage: clock VAR [LATER DURATION]")
	}
	now := time.Now().UTC().Truncate(time.Minute)
	ts.Setenv(args[0], now.Format(time.RFC3339))
	if len(args) == 3 {
		d, err := time.ParseDuration(args[2])
		ts.Check(err)
		ts.Setenv(args[1], now.Add(d).Format(time.RFC3339))
	}
}

// cw-age QUEUE SECONDS puts ApproximateAgeOfOldestMessage = SECONDS for
// QUEUE, stamped one minute before $NOW (see clock).
func cmdCWAge(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: cw-age QUEUE SECONDS")
	}
	v, err := strconv.ParseFloat(args[1], 64)
	ts.Check(err)
	now, err := time.Parse(time.RFC3339, ts.Getenv("NOW"))
	ts.Check(err)
	_, err = scriptCW(ts).PutMetricData(context.Background(), &cloudwatch.PutMetricDataInput{Namespace: aws.String("AWS/SQS"), MetricData: []cwtypes.MetricDatum{{
		MetricName: aws.String("ApproximateAgeOfOldestMessage"),
		Dimensions: []cwtypes.Dimension{{Name: aws.String("QueueName"), Value: aws.String(args[0])}},
		Timestamp:  aws.Time(now.Add(-time.Minute)),
		Value:      aws.Float64(v),
	}}})
	ts.Check(err)
}

package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mfdlq/mfdlq/internal/alarmhistory"
	"github.com/mfdlq/mfdlq/internal/cloudtrail"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

// The script commands of mfdlq changes: the CloudTrail and alarm-history
// stand-ins in front of moto, and what they hold.

type standins struct {
	trail *cloudtrail.Server
	hist  *alarmhistory.Server
}

var (
	standinsMu sync.Mutex
	standinsOf = map[*testscript.TestScript]*standins{}
)

func scriptStandins(ts *testscript.TestScript) *standins {
	standinsMu.Lock()
	defer standinsMu.Unlock()
	s := standinsOf[ts]
	if s == nil {
		ts.Fatalf("run standins first")
	}
	return s
}

// scriptNow is the script's clock: MFDLQ_NOW when it sets one, so that the
// stand-ins' 90 days and two weeks count from the same instant as mfdlq.
func scriptNow(ts *testscript.TestScript) func() time.Time {
	if t, err := time.Parse(time.RFC3339, ts.Getenv("MFDLQ_NOW")); err == nil {
		return func() time.Time { return t }
	}
	return time.Now
}

// standins starts the CloudTrail stand-in and the alarm-history stand-in
// (in front of moto) for this script and points mfdlq at them with
// AWS_ENDPOINT_URL_CLOUDTRAIL and AWS_ENDPOINT_URL_CLOUDWATCH.
func cmdStandins(ts *testscript.TestScript, neg bool, args []string) {
	ep := os.Getenv("AWS_ENDPOINT_URL")
	if ep == "" {
		ep = os.Getenv(localaws.EnvEndpoint)
	}
	trail := cloudtrail.New()
	trail.Now = scriptNow(ts)
	hist, err := alarmhistory.New(ep)
	ts.Check(err)
	hist.Now = scriptNow(ts)
	th, hh := httptest.NewServer(trail), httptest.NewServer(hist)
	ts.Defer(func() {
		th.Close()
		hh.Close()
		standinsMu.Lock()
		delete(standinsOf, ts)
		standinsMu.Unlock()
	})
	standinsMu.Lock()
	standinsOf[ts] = &standins{trail: trail, hist: hist}
	standinsMu.Unlock()
	ts.Setenv("AWS_ENDPOINT_URL_CLOUDTRAIL", th.URL)
	ts.Setenv("AWS_ENDPOINT_URL_CLOUDWATCH", hh.URL)
}

// trail-seed FILE seeds the CloudTrail stand-in with FILE's JSON list of
// events; $VARS in it are expanded.
func cmdTrailSeed(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: trail-seed FILE")
	}
	var evs []cloudtrail.Event
	ts.Check(json.Unmarshal([]byte(os.Expand(ts.ReadFile(args[0]), ts.Getenv)), &evs))
	scriptStandins(ts).trail.Add(evs...)
}

// trail-noise N SOURCE NAME RESOURCE FROM TO seeds N write events spread
// evenly over [FROM, TO], each naming RESOURCE, read-only ones when NAME
// starts with Get, List or Describe.
func cmdTrailNoise(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 6 {
		ts.Fatalf("usage: trail-noise N SOURCE NAME RESOURCE FROM TO")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	from, err := time.Parse(time.RFC3339, args[4])
	ts.Check(err)
	to, err := time.Parse(time.RFC3339, args[5])
	ts.Check(err)
	ro := "false"
	if strings.HasPrefix(args[2], "Get") || strings.HasPrefix(args[2], "List") || strings.HasPrefix(args[2], "Describe") {
		ro = "true"
	}
	var evs []cloudtrail.Event
	for i := range n {
		at := from.Add(time.Duration(i) * to.Sub(from) / time.Duration(max(1, n-1)))
		evs = append(evs, cloudtrail.Event{EventName: args[2], EventSource: args[1], EventTime: at, Username: "worker", ReadOnly: ro,
			RequestParameters: map[string]string{"logGroupName": args[3], "logStreamName": fmt.Sprintf("2026/11/29/[$LATEST]%04d", i)}})
	}
	scriptStandins(ts).trail.Add(evs...)
}

// trail-throttle N throttles the next N lookups.
func cmdTrailThrottle(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: trail-throttle N")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	scriptStandins(ts).trail.ThrottleNext(n)
}

// trail-calls MINCALLS MINTHROTTLED asserts what the stand-in answered: at
// least MINCALLS lookups, at least MINTHROTTLED of them throttled, none
// with more than one lookup attribute, none refused.
func cmdTrailCalls(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: trail-calls MINCALLS MINTHROTTLED")
	}
	minCalls, err := strconv.Atoi(args[0])
	ts.Check(err)
	minThrottled, err := strconv.Atoi(args[1])
	ts.Check(err)
	c := scriptStandins(ts).trail.Calls()
	if c.Total < minCalls || c.Throttled < minThrottled || c.MaxAttributes > 1 || c.Refused > 0 {
		ts.Fatalf("CloudTrail stand-in answered %+v; want ≥ %d calls, ≥ %d throttled, at most 1 attribute a call, none refused", c, minCalls, minThrottled)
	}
}

// alarm-seed NAME TIME OLD NEW [REASON] seeds one state change.
func cmdAlarmSeed(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 4 {
		ts.Fatalf("usage: alarm-seed NAME TIME OLD NEW [REASON]")
	}
	at, err := time.Parse(time.RFC3339, args[1])
	ts.Check(err)
	it := alarmhistory.Item{AlarmName: args[0], Timestamp: at, Old: args[2], New: args[3]}
	if len(args) > 4 {
		it.Reason = strings.Join(args[4:], " ")
	}
	scriptStandins(ts).hist.Add(it)
}

// cw-lambda FUNCTION METRIC START V1 V2 ... puts one point a minute from
// START in AWS/Lambda with the FunctionName dimension; for Duration each
// value is put as a single sample so its p99 is itself.
func cmdCWLambda(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 4 {
		ts.Fatalf("usage: cw-lambda FUNCTION METRIC START V1 [V2...]")
	}
	start, err := time.Parse(time.RFC3339, args[2])
	ts.Check(err)
	var data []cwtypes.MetricDatum
	for i, s := range args[3:] {
		v, err := strconv.ParseFloat(s, 64)
		ts.Check(err)
		data = append(data, cwtypes.MetricDatum{
			MetricName: aws.String(args[1]), Value: aws.Float64(v), Timestamp: aws.Time(start.Add(time.Duration(i) * time.Minute)),
			Dimensions: []cwtypes.Dimension{{Name: aws.String("FunctionName"), Value: aws.String(args[0])}},
		})
	}
	for i := 0; i < len(data); i += 500 {
		_, err = scriptCW(ts).PutMetricData(context.Background(), &cloudwatch.PutMetricDataInput{Namespace: aws.String("AWS/Lambda"), MetricData: data[i:min(i+500, len(data))]})
		ts.Check(err)
	}
}

// unq FROM TO writes FROM (a file, stdout or stderr) to TO with this
// script's queue prefix $Q (and the mapping's $UUID, when lambda-mapping
// set one) written as the literal "$Q" ("$UUID"), so that a golden file
// holds and `-update` can rewrite it.
func cmdUnq(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: unq FROM TO")
	}
	s := strings.ReplaceAll(ts.ReadFile(args[0]), ts.Getenv("Q"), "$Q")
	if u := ts.Getenv("UUID"); u != "" {
		s = strings.ReplaceAll(s, u, "$UUID")
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(s), 0o600))
}

// trail-deny makes every lookup AccessDeniedException from now on.
func cmdTrailDeny(ts *testscript.TestScript, neg bool, args []string) {
	scriptStandins(ts).trail.DenyAll()
}

// trail-rest waits a second: the account's two lookups a second refill, so
// the next run (a new process with a new pacer) starts unthrottled.
func cmdTrailRest(ts *testscript.TestScript, neg bool, args []string) {
	time.Sleep(time.Second)
}

// env-long VAR N TEXT sets VAR to TEXT repeated to N bytes: a trail field
// of hundreds of kilobytes, which a script cannot spell.
func cmdEnvLong(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: env-long VAR N TEXT")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	ts.Setenv(args[0], strings.Repeat(args[2], n/len(args[2])+1)[:n])
}

package cmd

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	ltypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/rogpeppe/go-internal/testscript"
)

// The script commands of contain, verify and check: they put on the local
// AWS what real SQS and Lambda would hold (metric points, a function and its
// mapping, an alarm), with the plain SDK.

// localConfig is the SDK configuration of the local AWS, from the process
// environment localaws.Wrap set.
var localConfig = sync.OnceValues(func() (aws.Config, error) {
	return config.LoadDefaultConfig(context.Background())
})

func scriptConfig(ts *testscript.TestScript) aws.Config {
	cfg, err := localConfig()
	ts.Check(err)
	return cfg
}

func scriptCW(ts *testscript.TestScript) *cloudwatch.Client {
	return cloudwatch.NewFromConfig(scriptConfig(ts), cwapi.ConfigureCloudWatch)
}

func scriptLambda(ts *testscript.TestScript) *lambda.Client {
	return lambda.NewFromConfig(scriptConfig(ts))
}

// cw-series QUEUE METRIC V1 V2 ... puts one point a minute, the last one a
// minute before the script's clock (MFDLQ_NOW when set, see clock), in
// AWS/SQS with the QueueName dimension, as SQS publishes. Counting from
// the script's clock, not the wall's: on a loaded machine a minute turned
// between `clock` and this line and the last point fell outside mfdlq's
// window (contain_golden read 0→14 for 0→20).
func cmdCWSeries(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 3 {
		ts.Fatalf("usage: cw-series QUEUE METRIC V1 [V2...]")
	}
	now := scriptNow(ts)().UTC().Truncate(time.Minute)
	var data []cwtypes.MetricDatum
	n := len(args) - 2
	for i, s := range args[2:] {
		v, err := strconv.ParseFloat(s, 64)
		ts.Check(err)
		data = append(data, cwtypes.MetricDatum{
			MetricName: aws.String(args[1]),
			Dimensions: []cwtypes.Dimension{{Name: aws.String("QueueName"), Value: aws.String(args[0])}},
			Timestamp:  aws.Time(now.Add(-time.Duration(n-i) * time.Minute)),
			Value:      aws.Float64(v),
		})
	}
	_, err := scriptCW(ts).PutMetricData(context.Background(), &cloudwatch.PutMetricDataInput{Namespace: aws.String("AWS/SQS"), MetricData: data})
	ts.Check(err)
}

// cw-point QUEUE METRIC VALUE puts one point stamped now in AWS/SQS with
// the QueueName dimension: what SQS publishes while a step runs.
func cmdCWPoint(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: cw-point QUEUE METRIC VALUE")
	}
	v, err := strconv.ParseFloat(args[2], 64)
	ts.Check(err)
	_, err = scriptCW(ts).PutMetricData(context.Background(), &cloudwatch.PutMetricDataInput{Namespace: aws.String("AWS/SQS"), MetricData: []cwtypes.MetricDatum{{
		MetricName: aws.String(args[1]),
		Dimensions: []cwtypes.Dimension{{Name: aws.String("QueueName"), Value: aws.String(args[0])}},
		Timestamp:  aws.Time(time.Now().UTC()),
		Value:      aws.Float64(v),
	}}})
	ts.Check(err)
}

// lambda-mapping QUEUE FUNCTION TIMEOUT creates a function with a tiny zip
// and a mapping from QUEUE to it, and sets $UUID to the mapping's UUID.
// Send nothing to QUEUE afterwards: moto would try to invoke the function.
func cmdLambdaMapping(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: lambda-mapping QUEUE FUNCTION TIMEOUT")
	}
	timeout, err := strconv.Atoi(args[2])
	ts.Check(err)
	ctx := context.Background()
	ts.Check(lambdaRole(ts))
	l := scriptLambda(ts)
	fn, err := l.CreateFunction(ctx, &lambda.CreateFunctionInput{
		FunctionName: aws.String(args[1]), Runtime: ltypes.RuntimePython312, Handler: aws.String("h.handler"),
		Role:    aws.String("arn:aws:iam::123456789012:role/lambda-role"),
		Code:    &ltypes.FunctionCode{ZipFile: localaws.HandlerZip("None")},
		Timeout: aws.Int32(int32(timeout)),
	})
	ts.Check(err)
	s := seeder(ts)
	u, err := s.SQS.GetQueueUrl(ctx, getURL(args[0]))
	ts.Check(err)
	arn, err := s.Attribute(ctx, *u.QueueUrl, "QueueArn")
	ts.Check(err)
	m, err := l.CreateEventSourceMapping(ctx, &lambda.CreateEventSourceMappingInput{
		EventSourceArn: aws.String(arn), FunctionName: fn.FunctionArn, BatchSize: aws.Int32(10),
	})
	ts.Check(err)
	ts.Setenv("UUID", aws.ToString(m.UUID))
}

// lambda-state UUID STATE [MAXCONCURRENCY|none] asserts a mapping's state
// (Enabled or Disabled) and, when given, its ScalingConfig.
func cmdLambdaState(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: lambda-state UUID STATE [MAXCONCURRENCY|none]")
	}
	out, err := scriptLambda(ts).GetEventSourceMapping(context.Background(), &lambda.GetEventSourceMappingInput{UUID: aws.String(args[0])})
	ts.Check(err)
	if got := aws.ToString(out.State); got != args[1] {
		ts.Fatalf("mapping %s is %s, want %s", args[0], got, args[1])
	}
	if len(args) < 3 {
		return
	}
	got := "none"
	if out.ScalingConfig != nil && out.ScalingConfig.MaximumConcurrency != nil {
		got = strconv.Itoa(int(*out.ScalingConfig.MaximumConcurrency))
	}
	if got != args[2] {
		ts.Fatalf("mapping %s has maximum concurrency %s, want %s", args[0], got, args[2])
	}
}

// cw-alarm NAME QUEUE THRESHOLD [ACTION] creates an alarm on the queue's
// ApproximateNumberOfMessagesVisible > THRESHOLD over 5 minutes.
func cmdCWAlarm(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 3 {
		ts.Fatalf("usage: cw-alarm NAME QUEUE THRESHOLD [ACTION]")
	}
	th, err := strconv.ParseFloat(args[2], 64)
	ts.Check(err)
	in := &cloudwatch.PutMetricAlarmInput{
		AlarmName: aws.String(args[0]), Namespace: aws.String("AWS/SQS"),
		MetricName: aws.String("ApproximateNumberOfMessagesVisible"),
		Dimensions: []cwtypes.Dimension{{Name: aws.String("QueueName"), Value: aws.String(args[1])}},
		Statistic:  cwtypes.StatisticMaximum, Period: aws.Int32(300), EvaluationPeriods: aws.Int32(1),
		Threshold: aws.Float64(th), ComparisonOperator: cwtypes.ComparisonOperatorGreaterThanThreshold,
	}
	if len(args) > 3 {
		in.AlarmActions = strings.Split(args[3], ",")
	}
	_, err = scriptCW(ts).PutMetricAlarm(context.Background(), in)
	ts.Check(err)
}

var roleOnce sync.Once
var roleErr error

// lambdaRole creates the IAM role the test functions use, once: moto refuses
// a function whose role does not exist. IAM is called with a plain signed
// query request so the tests need no IAM client module.
func lambdaRole(ts *testscript.TestScript) error {
	roleOnce.Do(func() {
		cfg := scriptConfig(ts)
		form := url.Values{
			"Action": {"CreateRole"}, "Version": {"2010-05-08"}, "RoleName": {"lambda-role"},
			"AssumeRolePolicyDocument": {`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"lambda.amazonaws.com"},"Action":"sts:AssumeRole"}]}`},
		}
		body := form.Encode()
		req, err := http.NewRequest(http.MethodPost, aws.ToString(cfg.BaseEndpoint)+"/", strings.NewReader(body))
		if err != nil {
			roleErr = err
			return
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		creds, err := cfg.Credentials.Retrieve(context.Background())
		if err != nil {
			roleErr = err
			return
		}
		sum := sha256.Sum256([]byte(body))
		if err := v4.NewSigner().SignHTTP(context.Background(), creds, req, hex.EncodeToString(sum[:]), "iam", "us-east-1", time.Now()); err != nil {
			roleErr = err
			return
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			roleErr = err
			return
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(resp.Body)
			if !strings.Contains(string(b), "EntityAlreadyExists") {
				roleErr = fmt.Errorf("create role: %s: %s", resp.Status, b)
			}
		}
	})
	return roleErr
}

package scenario

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"

	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/internal/alarmhistory"
	"github.com/mfdlq/mfdlq/internal/cloudtrail"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

// seedChanges writes what changed around the first failure into the
// stand-ins demo.sh started (AWS_ENDPOINT_URL_CLOUDTRAIL and
// AWS_ENDPOINT_URL_CLOUDWATCH) and moto: for the deploy, the producer's
// deploy one minute before the first failure and an earlier change of the
// consumer's configuration; for the outage, the payment gateway's alarm;
// for both, the log-stream and role-assumption noise every account writes,
// and the consumer's errors. Without the stand-ins it does nothing.
func seedChanges(ctx context.Context, cfg aws.Config, sc Scenario, first time.Time) error {
	trailURL, cwURL := os.Getenv("AWS_ENDPOINT_URL_CLOUDTRAIL"), os.Getenv("AWS_ENDPOINT_URL_CLOUDWATCH")
	if trailURL == "" || cwURL == "" {
		return nil
	}
	consumer := sc.LogGroup[len("/aws/lambda/"):]
	if _, err := localaws.CreateFunction(ctx, cfg, consumer, localaws.HandlerZip("None")); err != nil {
		return err
	}
	var evs []cloudtrail.Event
	for i := range 240 {
		at := first.Add(-25*time.Minute + time.Duration(i)*10*time.Second)
		evs = append(evs, cloudtrail.Event{EventName: "CreateLogStream", EventSource: "logs.amazonaws.com", EventTime: at, Username: consumer,
			RequestParameters: map[string]string{"logGroupName": sc.LogGroup, "logStreamName": fmt.Sprintf("2026/11/29/[$LATEST]%08x", i)}})
		if i%8 == 0 {
			evs = append(evs, cloudtrail.Event{EventName: "AssumeRole", EventSource: "sts.amazonaws.com", EventTime: at, Username: "lambda.amazonaws.com"})
		}
	}
	evs = append(evs, cloudtrail.Event{EventName: "UpdateService", EventSource: "ecs.amazonaws.com", EventTime: first.Add(-6 * time.Hour),
		Username: "ci-deployer", RequestParameters: map[string]string{"service": "billing-api"}})
	if sc.Name == "deploy" {
		evs = append(evs,
			cloudtrail.Event{EventName: "UpdateFunctionCode20150331v2", EventSource: "lambda.amazonaws.com", EventTime: first.Add(-time.Minute),
				Username: "ci-deployer", RequestParameters: map[string]string{"functionName": "orders-producer"},
				Resources: []cloudtrail.Resource{{ResourceType: "AWS::Lambda::Function", ResourceName: "orders-producer"}}},
			cloudtrail.Event{EventName: "UpdateFunctionConfiguration20150331v2", EventSource: "lambda.amazonaws.com", EventTime: first.Add(-18 * time.Minute),
				Username: "ops-alice", RequestParameters: map[string]string{"functionName": consumer}})
	}
	if err := post(ctx, trailURL+"/_standin/events", evs); err != nil {
		return err
	}
	if sc.Name == "outage" {
		if err := gatewayAlarm(ctx, cfg, cwURL, first); err != nil {
			return err
		}
	}
	return consumerErrors(ctx, cfg, consumer, first)
}

// gatewayAlarm is the payment gateway's latency alarm going to ALARM a
// minute before the first failure: the alarm in moto, its history in the
// stand-in.
func gatewayAlarm(ctx context.Context, cfg aws.Config, cwURL string, first time.Time) error {
	cw := cloudwatch.NewFromConfig(cfg, cwapi.ConfigureCloudWatch)
	if _, err := cw.PutMetricAlarm(ctx, &cloudwatch.PutMetricAlarmInput{
		AlarmName: aws.String("payment-gateway-p99"), Namespace: aws.String("PaymentGateway"), MetricName: aws.String("LatencyP99"),
		Dimensions: []cwtypes.Dimension{{Name: aws.String("Gateway"), Value: aws.String("payment-gateway")}},
		Statistic:  cwtypes.StatisticMaximum, Period: aws.Int32(60), EvaluationPeriods: aws.Int32(1), Threshold: aws.Float64(5000),
		ComparisonOperator: cwtypes.ComparisonOperatorGreaterThanThreshold,
	}); err != nil {
		return err
	}
	return post(ctx, cwURL+"/_standin/alarm-history", []alarmhistory.Item{
		{AlarmName: "payment-gateway-p99", Timestamp: first.Add(-time.Minute), Old: "OK", New: "ALARM", Reason: "Threshold Crossed: p99 latency 30000 ms > 5000 ms"},
		{AlarmName: "payment-gateway-p99", Timestamp: first.Add(29 * time.Minute), Old: "ALARM", New: "OK", Reason: "Threshold not crossed"},
	})
}

// consumerErrors puts the consumer's Errors from the first failure on, as
// Lambda publishes them.
func consumerErrors(ctx context.Context, cfg aws.Config, function string, first time.Time) error {
	var data []cwtypes.MetricDatum
	for i, v := range []float64{0, 0, 0, 48, 96, 96, 100} {
		data = append(data, cwtypes.MetricDatum{MetricName: aws.String("Errors"), Value: aws.Float64(v),
			Timestamp:  aws.Time(first.Truncate(time.Minute).Add(time.Duration(i-3) * time.Minute)),
			Dimensions: []cwtypes.Dimension{{Name: aws.String("FunctionName"), Value: aws.String(function)}}})
	}
	_, err := cloudwatch.NewFromConfig(cfg, cwapi.ConfigureCloudWatch).PutMetricData(ctx, &cloudwatch.PutMetricDataInput{Namespace: aws.String("AWS/Lambda"), MetricData: data})
	return err
}

func post(ctx context.Context, url string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("seed %s: %s", url, resp.Status)
	}
	return nil
}

package cwapi

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

func TestMain(m *testing.M) { os.Exit(localaws.Wrap(m).Run()) }

// TestCloudWatchProtocol records why ConfigureCloudWatch exists: the SDK's
// default RPCv2 CBOR is refused by the local server, awsQuery works, and
// QueueMetric reads back exactly the points put.
func TestCloudWatchProtocol(t *testing.T) {
	ctx := context.Background()
	cfg := localaws.Config(t)
	queue := localaws.UniqueName("cw")
	in := &cloudwatch.ListMetricsInput{Namespace: aws.String(Namespace)}
	if _, err := cloudwatch.NewFromConfig(cfg).ListMetrics(ctx, in); err == nil || !strings.Contains(err.Error(), "404") {
		t.Logf("the default CBOR protocol now answers (%v): ConfigureCloudWatch may no longer be needed against moto", err)
	}
	cw := cloudwatch.NewFromConfig(cfg, ConfigureCloudWatch)
	now := time.Now().UTC().Truncate(time.Minute)
	var data []cwtypes.MetricDatum
	for i, v := range []float64{0, 2, 5, 9} {
		data = append(data, cwtypes.MetricDatum{
			MetricName: aws.String(MetricVisible), Value: aws.Float64(v),
			Timestamp:  aws.Time(now.Add(time.Duration(i-4) * time.Minute)),
			Dimensions: []cwtypes.Dimension{{Name: aws.String(DimensionQueueName), Value: aws.String(queue)}},
		})
	}
	if _, err := cw.PutMetricData(ctx, &cloudwatch.PutMetricDataInput{Namespace: aws.String(Namespace), MetricData: data}); err != nil {
		t.Fatal(err)
	}
	points, err := QueueMetric(ctx, cw, MetricQuery{Queue: queue, Metric: MetricVisible, Stat: "Maximum", Start: now.Add(-30 * time.Minute), End: now, Period: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	var got []float64
	for _, p := range points {
		got = append(got, p.Value)
	}
	if len(got) != 4 || got[0] != 0 || got[3] != 9 {
		t.Fatalf("points = %v, want [0 2 5 9]", got)
	}
	if d := points[3].Time.Sub(points[0].Time); d != 3*time.Minute {
		t.Errorf("points span %s, want 3m0s: the times come back as put", d)
	}
	none, err := QueueMetric(ctx, cw, MetricQuery{Queue: queue + "-other", Metric: MetricVisible, Stat: "Maximum", Start: now.Add(-30 * time.Minute), End: now})
	if err != nil || len(none) != 0 {
		t.Errorf("another queue: %v, %v; want no points", none, err)
	}
}

func TestPeriodFor(t *testing.T) {
	for w, want := range map[time.Duration]time.Duration{30 * time.Minute: time.Minute, 6 * time.Hour: time.Minute, 24 * time.Hour: 4 * time.Minute, 336 * time.Hour: 56 * time.Minute} {
		if got := PeriodFor(w); got != want {
			t.Errorf("PeriodFor(%s) = %s, want %s", w, got, want)
		}
	}
}

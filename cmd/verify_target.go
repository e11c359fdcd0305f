package cmd

import (
	"context"
	"errors"
	"time"

	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/lambdaapi"
	"github.com/mfdlq/mfdlq/verify"
)

// targetOf is the target kind of a redrive's destination ARN: "lambda",
// "sns" or "events"; "" for a queue.
func targetOf(destURL string) string {
	switch svc := arnService(destURL); svc {
	case targetLambda, targetSNS, targetEvents:
		return svc
	}
	return ""
}

// observeFunction reads a Lambda target's Errors and Throttles since the
// redrive began; it leaves them nil when CloudWatch has no data or cannot
// be read (said once).
func (w *verifyWatch) observeFunction(ctx context.Context, obs *verify.Observation) {
	if w.rec.Target != targetLambda || w.noMetric || w.rec.StartedAt.IsZero() {
		return
	}
	fn, _ := functionRef(w.rec.DestURL)
	name := lambdaapi.FunctionName(fn)
	for _, m := range []struct {
		metric string
		dst    **float64
	}{{cwapi.MetricErrors, &obs.FunctionErrors}, {cwapi.MetricThrottles, &obs.FunctionThrottles}} {
		points, err := cwapi.QueueMetric(ctx, w.cw, cwapi.MetricQuery{
			Namespace: cwapi.NamespaceLambda, Dimension: cwapi.DimensionFunctionName, Queue: name, Metric: m.metric, Stat: "Sum",
			Start: w.rec.StartedAt.Truncate(time.Minute), End: w.o.deps.Now().Add(time.Minute), Period: time.Minute,
		})
		if err != nil {
			if !errors.Is(err, context.Canceled) {
				w.o.deps.warnf("CloudWatch unavailable (%v): %s's Errors and Throttles not judged", err, name)
				w.noMetric = true
			}
			return
		}
		if len(points) == 0 {
			continue
		}
		var sum float64
		for _, p := range points {
			sum += p.Value
		}
		*m.dst = &sum
	}
}

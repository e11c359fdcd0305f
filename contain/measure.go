package contain

import (
	"context"
	"fmt"
	"time"

	"github.com/mfdlq/mfdlq/sqsapi"
)

// BaselineSpan is how far before the window the source's normal age of
// oldest message is read: a day holds the quiet night and the busy noon
// an age is normal for.
const BaselineSpan = 24 * time.Hour

// Measure reads the DLQ's depth and trend over window and, when src is
// known, the source's depth and age of oldest message against its normal,
// into rep; then judges them (rep.Alive, Reasons, Verdict). What it could
// not read from CloudWatch it samples or says (Reader.Warn).
func (r Reader) Measure(ctx context.Context, dlq, src *sqsapi.Queue, window time.Duration, rep *Result) error {
	trend, err := r.DepthTrend(ctx, dlq, window)
	if err != nil {
		return fmt.Errorf("contain %s: %w", dlq.Name, err)
	}
	// A sampled trend's last look has just refreshed dlq's depth.
	if trend.Source != FromSampling {
		if err := sqsapi.Refresh(ctx, r.SQS, dlq); err != nil {
			return fmt.Errorf("contain %s: %w", dlq.Name, err)
		}
	}
	rep.DLQ = DLQVitals{Queue: dlq.Name, Visible: dlq.Depth.Visible, InFlight: dlq.Depth.InFlight, Trend: trend, Window: window.String()}
	if src != nil {
		age, normal, err := r.SourceAge(ctx, src, window, BaselineSpan)
		if err != nil {
			return fmt.Errorf("contain %s: %w", src.Name, err)
		}
		rep.Source = &SourceVitals{
			Queue: src.Name, Visible: src.Depth.Visible, InFlight: src.Depth.InFlight,
			AgeOfOldest: age, NormalAge: normal, AgeElevated: AgeElevated(age, normal),
		}
	}
	rep.Alive, rep.Reasons = Judge(rep.DLQ, rep.Source)
	rep.Verdict = VerdictOf(rep.Alive)
	return nil
}

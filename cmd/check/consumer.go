package check

import (
	"context"

	checkstep "github.com/mfdlq/mfdlq/check"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/idempotency"
)

// gatherConsumer reads what the consumer safeguards are judged on
// (checkstep.GatherConsumer); what may not be read is a warning finding.
func (o *CheckOptions) gatherConsumer(ctx context.Context, cw interface {
	cwapi.AlarmsAPI
	cwapi.MetricsAPI
}, in *checkstep.CheckInput) {
	d := o.deps
	r := checkstep.ConsumerReads{Metrics: cw, Now: d.Now, Store: checkstep.StoreReader(dynamoDB(d), d.Now)}
	checkstep.GatherConsumer(ctx, r, in)
}

// dynamoDB is the idempotency stores' client, as check reads it (nil: none).
func dynamoDB(d *cmdutil.Deps) func(context.Context) (idempotency.DynamoDB, error) {
	if d.DynamoDB == nil {
		return nil
	}
	return func(ctx context.Context) (idempotency.DynamoDB, error) { return d.DynamoDB(ctx) }
}

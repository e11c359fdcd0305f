package cmd

import (
	"context"

	"github.com/mfdlq/mfdlq/check"
	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/idempotency"
)

// gatherConsumer reads what the consumer safeguards are judged on
// (check.GatherConsumer); what may not be read is a warning.
func (o *checkOptions) gatherConsumer(ctx context.Context, cw interface {
	cwapi.AlarmsAPI
	cwapi.MetricsAPI
}, in *check.CheckInput) {
	d := o.deps
	r := check.ConsumerReads{Metrics: cw, Now: d.Now, Store: check.StoreReader(d.dynamoDB(), d.Now)}
	for _, w := range check.GatherConsumer(ctx, r, in) {
		d.warnf("%s", w)
	}
}

// dynamoDB is the idempotency stores' client, as check reads it (nil: none).
func (d *Deps) dynamoDB() func(context.Context) (idempotency.DynamoDB, error) {
	if d.DynamoDB == nil {
		return nil
	}
	return func(ctx context.Context) (idempotency.DynamoDB, error) { return d.DynamoDB(ctx) }
}

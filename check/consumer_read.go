package check

import (
	"context"
	"sync"
	"time"

	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/idempotency"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/untrusted"
)

// ConsumerReads are the reads the consumer safeguards are judged on, for
// check --queue and check --all alike. (The sources' age alarms come
// from the region's alarm listing: AlarmReading.Fill.)
type ConsumerReads struct {
	Metrics cwapi.MetricsAPI
	// Store reads one idempotency store, or says why it could not
	// (StoreReader).
	Store func(ctx context.Context, table string) StoreReading
	Now   func() time.Time
}

// GatherConsumer fills in the DLQ's oldest message's age and the
// idempotency stores the mappings' functions name. What may not be read
// is left unknown (a warning finding), never an error.
func GatherConsumer(ctx context.Context, r ConsumerReads, in *CheckInput) {
	if r.Now == nil {
		r.Now = time.Now
	}
	if r.Store == nil {
		r.Store = StoreReader(nil, r.Now)
	}
	in.OldestAge = oldestAge(ctx, r.Metrics, in.DLQ, r.Now())
	in.Stores = map[string]StoreReading{}
	for _, ms := range in.Mappings {
		for _, m := range ms {
			t := m.IdempotencyTable
			if _, done := in.Stores[t]; t == "" || done {
				continue
			}
			in.Stores[t] = r.Store(ctx, t)
		}
	}
}

// StoreReader reads idempotency stores through db (nil: not available,
// say why), each table once however many DLQs' consumers name it: a fleet
// sweep judges many DLQs that share a consumer's table.
func StoreReader(db func(context.Context) (idempotency.DynamoDB, error), now func() time.Time) func(context.Context, string) StoreReading {
	var mu sync.Mutex
	read := map[string]StoreReading{}
	return func(ctx context.Context, table string) StoreReading {
		mu.Lock()
		defer mu.Unlock()
		if r, ok := read[table]; ok {
			return r
		}
		r := readStore(ctx, db, table, now())
		read[table] = r
		return r
	}
}

func readStore(ctx context.Context, db func(context.Context) (idempotency.DynamoDB, error), table string, now time.Time) StoreReading {
	if db == nil {
		return StoreReading{Unread: "no DynamoDB client"}
	}
	c, err := db(ctx)
	if err != nil {
		return StoreReading{Unread: untrusted.Shorten(untrusted.Terminal(err.Error()), 200)}
	}
	s, err := idempotency.Read(ctx, c, table, now)
	if err != nil {
		return StoreReading{Store: s, Unread: untrusted.Shorten(untrusted.Terminal(err.Error()), 200)}
	}
	return StoreReading{Store: s}
}

// oldestAge is the DLQ's ApproximateAgeOfOldestMessage over the last
// hour, its latest point; 0 when CloudWatch holds none or may not be read.
func oldestAge(ctx context.Context, cw cwapi.MetricsAPI, dlq *sqsapi.Queue, now time.Time) time.Duration {
	if cw == nil {
		return 0
	}
	pts, err := cwapi.QueueMetric(ctx, cw, cwapi.MetricQuery{Queue: dlq.Name, Metric: cwapi.MetricAgeOfOldest, Stat: "Maximum",
		Start: now.Add(-time.Hour), End: now, Period: time.Minute})
	if err != nil || len(pts) == 0 {
		return 0
	}
	return time.Duration(pts[len(pts)-1].Value * float64(time.Second))
}

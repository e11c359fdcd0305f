package sqsapi

import (
	"context"
	"testing"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

// TestReadListingIndexesSources lists one prefix on the local AWS: every
// queue under it is read once, indexed by ARN, and the DLQ's entry holds
// its source alone (the plain queue is no one's DLQ).
func TestReadListingIndexesSources(t *testing.T) {
	ctx := context.Background()
	prefix := localaws.UniqueName("listing")
	seed := localaws.NewSeeder(localaws.Config(t))
	if _, _, err := seed.CreatePair(ctx, prefix+"-orders", prefix+"-orders-dlq", 3); err != nil {
		t.Fatal(err)
	}
	if _, err := seed.CreateQueue(ctx, prefix+"-plain", nil); err != nil {
		t.Fatal(err)
	}
	l, err := ReadListing(ctx, client(t), prefix, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Queues) != 3 || len(l.ByARN) != 3 {
		t.Fatalf("listed %v (%d by ARN); want the 3 queues under %s", names(l.Queues), len(l.ByARN), prefix)
	}
	var dlq *Queue
	for _, q := range l.Queues {
		if q.Name == prefix+"-orders-dlq" {
			dlq = q
		}
	}
	if dlq == nil || l.ByARN[dlq.ARN] != dlq {
		t.Fatalf("the DLQ %s-orders-dlq is not indexed by its ARN", prefix)
	}
	if got := names(l.Sources[dlq.ARN]); len(l.Sources) != 1 || len(got) != 1 || got[0] != prefix+"-orders" {
		t.Errorf("sources %v (%d DLQs); want only %s-orders for %s", got, len(l.Sources), prefix, dlq.Name)
	}
}

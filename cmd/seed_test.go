package cmd

import (
	"context"
	"fmt"
	"testing"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

// seedOrders creates a source queue and its DLQ (maxReceiveCount 3) named
// after prefix, and puts n orders {"order_id":"o-<i>"} with attrs in the
// DLQ: the backlog most redrive tests move.
func seedOrders(t *testing.T, s *localaws.Seeder, prefix string, n int, attrs map[string]string) (name, src, dlq string, bodies []string) {
	t.Helper()
	ctx := context.Background()
	name = localaws.UniqueName(prefix)
	src, dlq, err := s.CreatePair(ctx, name, name+"-dlq", 3)
	if err != nil {
		t.Fatal(err)
	}
	bodies = make([]string, n)
	for i := range bodies {
		bodies[i] = fmt.Sprintf(`{"order_id":"o-%d"}`, i)
	}
	if err := s.Send(ctx, dlq, bodies, attrs); err != nil {
		t.Fatal(err)
	}
	return name, src, dlq, bodies
}

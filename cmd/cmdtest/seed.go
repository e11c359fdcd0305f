package cmdtest

import (
	"context"
	"fmt"
	"testing"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

// SeedDLQ creates a source queue and its DLQ (maxReceiveCount 4) on the
// local AWS, sends n order messages to the DLQ and returns its name. The
// first call starts the local AWS: the package's TestMain wraps its tests
// in localaws.WrapOnDemand.
func SeedDLQ(t *testing.T, n int) string {
	t.Helper()
	seed := localaws.NewSeeder(localaws.Config(t))
	dlq := localaws.UniqueName("orders-dlq")
	_, url, err := seed.CreatePair(context.Background(), localaws.UniqueName("orders"), dlq, 4)
	if err != nil {
		t.Fatal(err)
	}
	var bodies []string
	for i := range n {
		bodies = append(bodies, fmt.Sprintf(`{"order_id":"o-%d","version":2}`, i))
	}
	if err := seed.Send(context.Background(), url, bodies, nil); err != nil {
		t.Fatal(err)
	}
	return dlq
}

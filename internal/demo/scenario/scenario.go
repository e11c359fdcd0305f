// Package scenario builds the demo incidents: queues, messages and logs as a
// real incident leaves them.
package scenario

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"

	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

// Queue names of the demo.
const (
	SourceQueue = "orders"
	DLQ         = "orders-dlq"
)

// Seed creates the named scenario on the local AWS the environment points at.
func Seed(ctx context.Context, name string, out io.Writer) error {
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return err
	}
	s := localaws.NewSeeder(cfg)
	switch name {
	case "deploy":
		return seedDeploy(ctx, s, out)
	}
	return fmt.Errorf("unknown scenario %q: use deploy", name)
}

// seedDeploy is the Sunday-night deploy: a producer started sending
// "version": 2 orders before the consumer understood them; 340 orders ended
// in the DLQ after maxReceiveCount 4.
func seedDeploy(ctx context.Context, s *localaws.Seeder, out io.Writer) error {
	_, dlqURL, err := s.CreatePair(ctx, SourceQueue, DLQ, 4)
	if err != nil {
		return err
	}
	bodies := Orders(340, 2, rand.New(rand.NewSource(20261129)))
	if err := s.Send(ctx, dlqURL, bodies, nil); err != nil {
		return err
	}
	fmt.Fprintf(out, "seeded: queue %s with DLQ %s (maxReceiveCount 4), 340 version-2 orders in the DLQ\n", SourceQueue, DLQ)
	return nil
}

// Orders returns n realistic order bodies of schema version.
func Orders(n, version int, r *rand.Rand) []string {
	names := []string{"ana", "bruno", "carla", "diego", "elena", "fabio", "gina", "hugo"}
	out := make([]string, n)
	for i := range out {
		name := names[r.Intn(len(names))]
		order := map[string]any{
			"version":  version,
			"order_id": fmt.Sprintf("ord-%06d", 104200+i),
			"customer": map[string]any{
				"email": fmt.Sprintf("%s.%d@example.com", name, r.Intn(900)+100),
				"phone": fmt.Sprintf("+34 6%02d %03d %03d", r.Intn(100), r.Intn(1000), r.Intn(1000)),
			},
			"items": []map[string]any{
				{"sku": fmt.Sprintf("SKU-%04d", r.Intn(9000)+1000), "qty": r.Intn(3) + 1},
			},
			"total":    float64(r.Intn(20000)+500) / 100,
			"currency": "EUR",
		}
		b, _ := json.Marshal(order)
		out[i] = string(b)
	}
	return out
}

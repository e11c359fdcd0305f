// Package scenario builds the demo incidents: queues, messages and logs as a
// real incident leaves them.
package scenario

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

// Queue names of the deploy scenario.
const (
	SourceQueue = "orders"
	DLQ         = "orders-dlq"
	LogGroup    = "/aws/lambda/orders-consumer"
)

// Queue names of the outage scenario.
const (
	PaymentsQueue    = "payments"
	PaymentsDLQ      = "payments-dlq"
	PaymentsLogGroup = "/aws/lambda/payments-consumer"
)

// Scenario is what a seeded demo incident needs the runbook to be told.
type Scenario struct {
	Name      string
	Source    string
	DLQ       string
	LogGroup  string
	Messages  int
	Fixed     string // the fix the demo records ("" when none is needed)
	Cause     string
	Warning   string
	AcceptMax int // the highest version the demo consumer processes
	// Expect is what the consumer accepted when the incident began, for
	// classify (--expect); empty when it is not a matter of content.
	Expect string
}

// Scenarios are the demo incidents by name.
var Scenarios = map[string]Scenario{
	"deploy": {
		Name: "deploy", Source: SourceQueue, DLQ: DLQ, LogGroup: LogGroup, Messages: 340,
		Fixed:     "orders-consumer 1.8.0 understands order version 2",
		Cause:     "the producer started sending order version 2 before orders-consumer understood it; after maxReceiveCount 4 every order went to orders-dlq",
		Warning:   "a contract test between producer and consumer, and an alarm on orders-dlq",
		AcceptMax: 2,
		Expect:    "version=1",
	},
	"outage": {
		Name: "outage", Source: PaymentsQueue, DLQ: PaymentsDLQ, LogGroup: PaymentsLogGroup, Messages: 120,
		Cause:     "the payment gateway timed out for 29 minutes; every payment in that window failed its 4 attempts",
		Warning:   "an alarm on payments-dlq and on the gateway's error rate",
		AcceptMax: 1,
	},
}

// Seed creates the named scenario on the local AWS the environment points at.
func Seed(ctx context.Context, name string, out io.Writer) (Scenario, error) {
	sc, ok := Scenarios[name]
	if !ok {
		return sc, fmt.Errorf("unknown scenario %q: use deploy or outage", name)
	}
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return sc, err
	}
	s := localaws.NewSeeder(cfg)
	logs := cloudwatchlogs.NewFromConfig(cfg)
	r := rand.New(rand.NewSource(20261129))
	srcURL, dlqURL, err := s.CreatePair(ctx, sc.Source, sc.DLQ, 4)
	if err != nil {
		return sc, err
	}
	// A short visibility timeout keeps the redrive's canary wait (visibility
	// × maxReceiveCount) to seconds in the demo.
	if _, err := s.SQS.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{
		QueueUrl: aws.String(srcURL), Attributes: map[string]string{"VisibilityTimeout": "2"},
	}); err != nil {
		return sc, err
	}
	var bodies []string
	var attrs map[string]string
	var story func(id string) []string
	switch name {
	case "deploy":
		bodies = Orders(sc.Messages, 2, r)
		story = versionStory
	case "outage":
		bodies = Payments(sc.Messages, r)
		attrs = map[string]string{"ErrorCode": "GatewayTimeout"}
		story = gatewayStory
	}
	first := time.Now().UTC()
	ids, err := s.SendIDs(ctx, dlqURL, bodies, attrs)
	if err != nil {
		return sc, err
	}
	if err := seedChanges(ctx, cfg, sc, first); err != nil {
		return sc, fmt.Errorf("seed what changed: %w", err)
	}
	if err := writeLogs(ctx, logs, sc.LogGroup, ids, story, r); err != nil {
		return sc, fmt.Errorf("seed logs: %w", err)
	}
	fmt.Fprintf(out, "seeded %s: queue %s with DLQ %s (maxReceiveCount 4), %d messages in the DLQ, log group %s naming their MessageIds\n",
		name, sc.Source, sc.DLQ, len(ids), sc.LogGroup)
	return sc, nil
}

// order is an order body, its fields in key order.
type order struct {
	Currency string `json:"currency"`
	Customer struct {
		Email string `json:"email"`
		Phone string `json:"phone"`
	} `json:"customer"`
	Items   []orderItem `json:"items"`
	OrderID string      `json:"order_id"`
	Total   float64     `json:"total"`
	Version int         `json:"version"`
}

type orderItem struct {
	Qty int    `json:"qty"`
	SKU string `json:"sku"`
}

// payment is a payment request body, its fields in key order.
type payment struct {
	Amount    float64 `json:"amount"`
	Card      string  `json:"card"`
	Currency  string  `json:"currency"`
	OrderID   string  `json:"order_id"`
	PaymentID string  `json:"payment_id"`
	Version   int     `json:"version"`
}

// Orders returns n realistic order bodies of schema version.
func Orders(n, version int, r *rand.Rand) []string {
	names := []string{"ana", "bruno", "carla", "diego", "elena", "fabio", "gina", "hugo"}
	out := make([]string, n)
	for i := range out {
		name := names[r.Intn(len(names))]
		// The random numbers are drawn in the order they always were, so
		// the demo's bodies stay the same; fields are in key order, as
		// the map they were written from put them.
		o := order{Version: version, OrderID: fmt.Sprintf("ord-%06d", 104200+i)}
		o.Customer.Email = fmt.Sprintf("%s.%d@example.com", name, r.Intn(900)+100)
		o.Customer.Phone = fmt.Sprintf("+34 6%02d %03d %03d", r.Intn(100), r.Intn(1000), r.Intn(1000))
		o.Items = []orderItem{{SKU: fmt.Sprintf("SKU-%04d", r.Intn(9000)+1000), Qty: r.Intn(3) + 1}}
		o.Total = float64(r.Intn(20000)+500) / 100
		o.Currency = "EUR"
		b, _ := json.Marshal(o)
		out[i] = string(b)
	}
	return out
}

// Payments returns n version-1 payment requests, each with a test card
// number (Luhn-valid, as real ones are) for the report's redaction to hide.
func Payments(n int, r *rand.Rand) []string {
	cards := []string{"4111 1111 1111 1111", "5555 5555 5555 4444", "4012 8888 8888 1881"}
	out := make([]string, n)
	for i := range out {
		p := payment{Version: 1, PaymentID: fmt.Sprintf("pay-%06d", 880100+i), OrderID: fmt.Sprintf("ord-%06d", 104200+r.Intn(5000))}
		p.Card = cards[r.Intn(len(cards))]
		p.Amount = float64(r.Intn(20000)+500) / 100
		p.Currency = "EUR"
		b, _ := json.Marshal(p)
		out[i] = string(b)
	}
	return out
}

// now is the demo's clock for log timestamps.
var now = func() time.Time { return time.Now().UTC() }

package browse

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/contain"
	"github.com/mfdlq/mfdlq/inventory"
	"github.com/mfdlq/mfdlq/lambdaapi"
	"github.com/mfdlq/mfdlq/logsearch"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// now is the fixed clock of every frame.
var now = time.Date(2026, 12, 1, 3, 4, 0, 0, time.UTC)

// hostile is a body that tries to recolour the terminal, retitle it and
// reverse the text after it.
const hostile = `{"version":2,"order_id":"A-1001","note":"\x1b[31mEVIL\x1b]0;pwned\x07 \u202egnp.exe","email":"ann@example.com"}`

// fake is a Backend over fixture data; block, when set, holds Classify
// until it is closed (a read still pending).
type fake struct {
	mu       sync.Mutex
	block    chan struct{}
	calls    []string
	redriven []string
	// hold makes a confirmed redrive run until it is stopped.
	hold bool
}

func (f *fake) note(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, s)
}

func i64(n int64) *int64 { return &n }

func (f *fake) Fleet(context.Context) (*Fleet, error) {
	f.note("fleet")
	exp := &sqsapi.Expiry{Oldest: now.Add(-3 * 24 * time.Hour), At: now.Add(26*time.Hour + 13*time.Minute), Basis: "cloudwatch"}
	dlqs := []inventory.DLQ{
		{Queue: "orders-dlq", Region: "eu-west-1", Account: "123456789012", Visible: 340, InFlight: 2, Retention: 345600,
			Expiry: exp, ExpiresIn: i64(int64((26*time.Hour + 13*time.Minute).Seconds())),
			Sources: []inventory.Source{{Queue: "orders"}}, Functions: []string{"orders-consumer"}, FunctionsKnown: true, AlarmsKnown: true, Alarms: []string{"orders-dlq-depth"}},
		{Queue: "payments-dlq", Region: "eu-west-1", Visible: 12, Sources: []inventory.Source{{Queue: "payments"}, {Queue: "refunds"}}, FunctionsKnown: false, AlarmsKnown: true},
		{Queue: "emails-dlq", Region: "eu-west-1", Sources: []inventory.Source{{Queue: "emails"}}, FunctionsKnown: true, AlarmsKnown: true},
	}
	return &Fleet{DLQs: dlqs, Summary: inventory.Summarize(dlqs, now), At: now}, nil
}

func (f *fake) Contain(_ context.Context, q string) (*contain.Result, error) {
	f.note("contain " + q)
	return &contain.Result{Verdict: contain.NotAlive, Reasons: []string{"the DLQ stopped growing 38 min ago"},
		DLQ:          contain.DLQVitals{Queue: q, Visible: 340, Trend: contain.Trend{Direction: "flat", From: 340, To: 340, Source: "cloudwatch"}},
		Source:       &contain.SourceVitals{Queue: "orders", Visible: 3},
		Mappings:     []lambdaapi.Mapping{{Function: "orders-consumer", State: "Enabled"}},
		OldestExpiry: &sqsapi.Expiry{At: now.Add(26*time.Hour + 13*time.Minute)}}, nil
}

func (f *fake) Classify(ctx context.Context, q string) (*Classified, error) {
	f.note("classify " + q)
	if f.block != nil {
		select {
		case <-f.block:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	first := now.Add(-50 * time.Hour)
	return &Classified{Incident: "incidents/orders-dlq-20261201T0300Z", Result: &classify.Classification{
		Verdict: classify.VerdictPoison, Messages: 100, Confidence: 0.97,
		Groups: []classify.Group{
			{ID: "g1", Verdict: classify.VerdictPoison, Count: 96, Pattern: "burst", Envelope: "raw", Fingerprint: "v2 {email,note,order_id,version}",
				Signature: "UnsupportedVersionError", SignatureSource: "logs", Error: "UnsupportedVersionError: version 2",
				FirstSent: first, LastSent: first.Add(40 * time.Minute), Arrivals: []int{0, 0, 3, 40, 50, 3, 0, 0, 0, 0, 0, 0},
				Evidence: []string{"96 of 96 carry version 2, which the baseline never has"}, Action: "fix the consumer, then mfdlq redrive --queue orders-dlq --group g1",
				Drift: []classify.Drift{{Text: "version: value 2 in 96 of 96 (baseline: 1)"}}},
			{ID: "g2", Verdict: classify.VerdictTransient, Count: 4, Pattern: "trickle", Fingerprint: "v1 {order_id,version}",
				Evidence: []string{"\x1b[2Jtimeout calling payments after 30s"}, Action: "mfdlq redrive --queue orders-dlq --group g2"},
		}}}, nil
}

func (f *fake) Group(_ context.Context, q, g string, fresh bool) (*GroupMessages, error) {
	f.note(fmt.Sprintf("group %s %s fresh=%v", q, g, fresh))
	src := "the incident's sample"
	if fresh {
		src = "a new peek"
	}
	if g != "g1" {
		return &GroupMessages{Peeked: 100, Source: src}, nil
	}
	s := "x"
	return &GroupMessages{Peeked: 100, Source: src, Messages: []sqsjson.Message{
		{MessageId: "5e0c2a44-8d1b-4f0e-9c3a-1b2c3d4e5f60", Body: hostile,
			Attributes:        map[string]string{"SentTimestamp": "1764730800000", "ApproximateReceiveCount": "4"},
			MessageAttributes: map[string]sqsjson.MessageAttributeValue{"trace\u202e": {DataType: "String", StringValue: &s}}},
		{MessageId: "7b1d3f55-0000-4f0e-9c3a-1b2c3d4e5f61", Body: `{"version":2,"order_id":"A-1002"}`,
			Attributes: map[string]string{"SentTimestamp": "1764730860000", "ApproximateReceiveCount": "4"}},
	}}, nil
}

func (f *fake) Logs(_ context.Context, q, id string) (*logsearch.Result, error) {
	f.note("logs " + id)
	return &logsearch.Result{Method: logsearch.MethodFilter, Searched: 1, Found: 1, Messages: []logsearch.Record{{
		MessageID: id, Found: true, LogGroup: "/aws/lambda/orders-consumer", LogStream: "2026/11/29/[$LATEST]ab12", Timestamp: "2026-11-29T01:02:03Z",
		Exception: "UnsupportedVersionError: version 2", Lines: []string{"START RequestId: r-1", "ERROR \x1b[31munsupported\x1b[0m version 2"}}}}, nil
}

func (f *fake) Redrive(ctx context.Context, q, g string, flags []string, io ActionIO) (string, error) {
	f.note("redrive " + q + " " + g + " " + strings.Join(flags, " "))
	io.Status("redriving: account 123456789012 · region eu-west-1 · queue " + q)
	yes, err := io.Ask([]string{
		"redriving: account 123456789012 · region eu-west-1 · queue " + q,
		"plan: move up to 96 of 340 messages in orders-dlq → orders",
	}, "move up to 96 messages from orders-dlq to orders (account 123456789012, region eu-west-1)?")
	if err != nil || !yes {
		return "", errors.New("nothing changed: not confirmed")
	}
	if f.hold {
		io.Status("12/96 moved · 10.0 msg/s")
		<-ctx.Done()
		return "", errors.New("interrupted: 12 moved, the journal keeps the rest")
	}
	f.mu.Lock()
	f.redriven = append(f.redriven, g)
	f.mu.Unlock()
	return "done: 96 moved, 0 failed", nil
}

func (f *fake) Export(context.Context, string, ActionIO) (string, error) {
	f.note("export")
	return "exported 340", nil
}

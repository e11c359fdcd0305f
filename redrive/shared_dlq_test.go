package redrive

import (
	"errors"
	"strings"
	"testing"

	"github.com/mfdlq/mfdlq/redrive/sample"
	"github.com/mfdlq/mfdlq/selection"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// narrowPlan is --to orders on a DLQ whose sample holds 2 from orders, 3
// from payments and 1 without a source.
func narrowPlan(force bool, sel selection.Predicate) *Plan {
	orders := &sqsapi.Queue{Name: "orders", ARN: "arn:aws:sqs:r:1:orders"}
	var msgs []sqsjson.Message
	for _, src := range []string{"arn:aws:sqs:r:1:orders", "arn:aws:sqs:r:1:orders", "arn:aws:sqs:r:1:payments", "arn:aws:sqs:r:1:payments", "arn:aws:sqs:r:1:payments", ""} {
		msgs = append(msgs, sharedMsg(src))
	}
	p := &Plan{Req: Request{Force: force}, Select: sel, Source: Source{Queue: &sqsapi.Queue{Name: "shared-dlq"}},
		Dests: []Destination{{Queue: orders}}, Narrow: true, Sample: sample.Of(msgs)}
	return p
}

func TestCheckNarrowed(t *testing.T) {
	var warned []string
	env := &Env{Warn: func(f string, a ...any) { warned = append(warned, f) }}
	var r *Refusal
	if err := checkNarrowed(env, narrowPlan(false, selection.Predicate{})); !errors.As(err, &r) || !strings.Contains(r.Reason, "3 of the 6 selected messages looked at came from other queues than orders (payments 3)") {
		t.Fatalf("not narrowed: %v, want a refusal naming payments 3", err)
	}
	p := narrowPlan(true, selection.Predicate{})
	if err := checkNarrowed(env, p); err != nil || p.Narrow || len(warned) != 1 {
		t.Fatalf("--force: %v, narrow %v, warnings %q; want a warning and every message to orders", err, p.Narrow, warned)
	}
	own, err := selection.Selection{Filter: `.Attributes.DeadLetterQueueSourceArn == "arn:aws:sqs:r:1:orders"`}.Compile(nil)
	if err != nil {
		t.Fatal(err)
	}
	p = narrowPlan(false, own)
	if err := checkNarrowed(env, p); err != nil || !p.Narrow || p.Sample.Looked != 2 {
		t.Fatalf("narrowed by the selection: %v, narrow %v, looked %d; want no refusal, strangers still left at move time", err, p.Narrow, p.Sample.Looked)
	}
}

func sharedMsg(src string) sqsjson.Message {
	m := sqsjson.Message{MessageId: "m", Attributes: map[string]string{}}
	if src != "" {
		m.Attributes[sqsjson.AttrDeadLetterQueueSourceArn] = src
	}
	return m
}

package transform

import (
	"context"
	"testing"

	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// BenchmarkApply: one seed order repaired to version 1, the cost the mover
// adds per message (compare with SendMessageBatch's ~ms per ten).
func BenchmarkApply(b *testing.B) {
	p, err := Compile(`.version = 1 | set_attributes(.schema.StringValue = "1")`, "--transform")
	if err != nil {
		b.Fatal(err)
	}
	m := &sqsjson.Message{MessageId: "m", Body: order2, MessageAttributes: map[string]sqsjson.MessageAttributeValue{"schema": sattr("2")}}
	b.ReportAllocs()
	for b.Loop() {
		if r := p.Apply(context.Background(), m, Limits{}); r.Outcome != Changed {
			b.Fatal(r.Reason)
		}
	}
}

// BenchmarkApplyDecoded is the transform's share of a message on the
// redrive mover's path (the payload decoded once, for --key too): the
// scale bench's order and program (bench/cmd/movebench -dedupe-transform).
func BenchmarkApplyDecoded(b *testing.B) {
	p, err := Compile(`.version = 1`, "--transform")
	if err != nil {
		b.Fatal(err)
	}
	m := &sqsjson.Message{MessageId: "m", Body: `{"order_id":"o-00012345","version":2,"total":12345.5}`}
	d := envelope.Decode(m)
	b.ReportAllocs()
	for b.Loop() {
		if r := p.ApplyDecoded(context.Background(), m, d, Limits{}); r.Outcome != Changed {
			b.Fatal(r.Reason)
		}
	}
}

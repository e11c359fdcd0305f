package transform

import (
	"context"
	"testing"

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

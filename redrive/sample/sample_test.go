package sample

import (
	"slices"
	"testing"

	"github.com/mfdlq/mfdlq/sqsjson"
)

// The sample counts each source queue's share and the messages that carry
// none; a selection counts only what it picks; Others names the rest.
func TestCountAndOthers(t *testing.T) {
	from := func(id, arn string) sqsjson.Message {
		m := sqsjson.Message{MessageId: id, Attributes: map[string]string{}}
		if arn != "" {
			m.Attributes[sqsjson.AttrDeadLetterQueueSourceArn] = arn
		}
		return m
	}
	orders, billing := "arn:aws:sqs:us-east-1:123456789012:orders", "arn:aws:sqs:us-east-1:123456789012:billing"
	s := Of([]sqsjson.Message{from("1", orders), from("2", orders), from("3", billing), from("4", "")})
	if s.Looked != 4 || s.Sourceless != 1 || s.Shares[orders] != 2 || s.Shares[billing] != 1 {
		t.Fatalf("counts: %+v", s)
	}
	if others, n := s.Others(orders); !slices.Equal(others, []string{"billing 1"}) || n != 1 {
		t.Errorf("others of orders: %q, %d", others, n)
	}
	s.Count(func(m *sqsjson.Message) (bool, error) { return m.MessageId != "1", nil })
	if s.Looked != 3 || s.Shares[orders] != 1 || len(s.Messages()) != 4 {
		t.Errorf("selected: %+v", s)
	}
	if got := QueueName("arn:aws:sqs:us-east-1:123456789012:orders\x1b[31m"); got == "orders\x1b[31m" {
		t.Errorf("QueueName kept a terminal escape: %q", got)
	}
}

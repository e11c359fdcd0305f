package sqsjson

import (
	"strings"
	"testing"
)

func TestSourceQueue(t *testing.T) {
	for _, tc := range []struct {
		attr, wantARN, wantName string
		ok                      bool
	}{
		{"arn:aws:sqs:eu-west-1:123456789012:orders", "arn:aws:sqs:eu-west-1:123456789012:orders", "orders", true},
		{"arn:aws-cn:sqs:cn-north-1:123456789012:pay.fifo", "arn:aws-cn:sqs:cn-north-1:123456789012:pay.fifo", "pay.fifo", true},
		{"", "", "", false},
		{"arn:aws:sns:eu-west-1:123456789012:topic", "arn:aws:sns:eu-west-1:123456789012:topic", "", false},
		{"arn:aws:sqs:eu-west-1::orders", "arn:aws:sqs:eu-west-1::orders", "", false},
		{"arn:aws:sqs:eu-west-1:123456789012:", "arn:aws:sqs:eu-west-1:123456789012:", "", false},
		{"arn:aws:sqs:eu-west-1:123456789012:a/b", "arn:aws:sqs:eu-west-1:123456789012:a/b", "", false},
		{"orders", "orders", "", false},
		{"arn:aws:sqs:eu-west-1:123456789012:\x1b]0;x\x07", "arn:aws:sqs:eu-west-1:123456789012:\x1b]0;x\x07", "", false},
		{"arn:aws:sqs:eu-west-1:123456789012:.fifo", "arn:aws:sqs:eu-west-1:123456789012:.fifo", "", false},
		{"arn:aws:sqs:eu-west-1:123456789012:" + strings.Repeat("a", 81), "arn:aws:sqs:eu-west-1:123456789012:" + strings.Repeat("a", 81), "", false},
	} {
		m := Message{Attributes: map[string]string{}}
		if tc.attr != "" {
			m.Attributes[AttrDeadLetterQueueSourceArn] = tc.attr
		}
		if got := m.SourceARN(); got != tc.wantARN {
			t.Errorf("%q: SourceARN %q, want %q", tc.attr, got, tc.wantARN)
		}
		name, ok := m.SourceQueue()
		if name != tc.wantName || ok != tc.ok {
			t.Errorf("%q: SourceQueue %q %v, want %q %v", tc.attr, name, ok, tc.wantName, tc.ok)
		}
	}
	var none Message
	if none.SourceARN() != "" {
		t.Error("a message without attributes has a source")
	}
}

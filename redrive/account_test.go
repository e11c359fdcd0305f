package redrive

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckProposed(t *testing.T) {
	home := Place{Account: "123456789012", Region: "us-east-1"}
	for dest, refused := range map[string]bool{
		"arn:aws:sns:us-east-1:123456789012:orders":                   false,
		"arn:aws:sns:us-east-1:999999999999:orders":                   true,
		"arn:aws:sns:eu-west-1:123456789012:orders":                   true,
		"arn:aws:lambda:us-east-1:999999999999:function:orders":       true,
		"arn:aws:events:us-east-1:123456789012:event-bus/orders":      false,
		"arn:aws:events:us-east-1:210987654321:event-bus/orders-copy": true,
		"orders": false,
	} {
		err := CheckProposed("orders-dlq", home, dest, "the TopicArn")
		var pe *ProposedOutsideError
		if refused != errors.As(err, &pe) {
			t.Errorf("%s: %v, refused %v", dest, err, refused)
		}
		if refused && !strings.Contains(err.Error(), "account 123456789012, region us-east-1") {
			t.Errorf("%s: the refusal names not the DLQ's account and region: %v", dest, err)
		}
	}
	if l := CrossAccount("orders-dlq", home, "sqs:orders", Place{Account: "999999999999"}); !strings.Contains(l, "999999999999") || !strings.Contains(l, "123456789012") {
		t.Errorf("cross-account line %q must name both accounts", l)
	}
	if l := CrossAccount("orders-dlq", home, "orders", home); l != "" {
		t.Errorf("same account: %q", l)
	}
}

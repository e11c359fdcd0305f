package check

import (
	"testing"

	"github.com/mfdlq/mfdlq/sqsapi"
)

func TestMissingTarget(t *testing.T) {
	src := &sqsapi.Queue{Name: "pay-orders", Account: "111111111111", Region: "eu-west-1"}
	for _, c := range []struct {
		target, prefix string
		want           Status
	}{
		{"arn:aws:sqs:eu-west-1:111111111111:pay-orders-dlq", "", Fail},
		{"arn:aws:sqs:eu-west-1:111111111111:pay-orders-dlq", "pay", Fail}, // inside the prefix: it would have been listed
		{"arn:aws:sqs:eu-west-1:111111111111:shared-dlq", "pay", Skip},
		{"arn:aws:sqs:eu-west-1:222222222222:pay-orders-dlq", "", Skip},
		{"arn:aws:sqs:us-east-1:111111111111:pay-orders-dlq", "", Skip},
	} {
		got := missingTarget(src, c.target, c.prefix)
		if got.Verdict != c.want || got.Findings[0].ID != IDRedriveTarget || got.Account != src.Account {
			t.Errorf("%s with prefix %q: %+v, want %s", c.target, c.prefix, got, c.want)
		}
	}
}

func TestSortSweptPutsFailuresFirst(t *testing.T) {
	s := []Swept{
		{Account: "1", Result: Result{Queue: "a", Verdict: Pass}},
		{Account: "2", Result: Result{Queue: "b", Verdict: Fail}},
		{Account: "1", Result: Result{Queue: "c", Verdict: Warn}},
		{Account: "1", Result: Result{Queue: "d", Verdict: Fail}},
	}
	SortSwept(s)
	var got string
	for _, x := range s {
		got += x.Queue
	}
	if got != "dbca" {
		t.Errorf("order %s, want dbca", got)
	}
}

package place

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
		var pe *proposedOutsideError
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

func TestSourceProblem(t *testing.T) {
	h := Home{Place: Place{Account: "123456789012", Region: "us-east-1"}, Partition: "aws"}
	for _, tt := range []struct{ src, want string }{
		{"arn:aws:sqs:us-east-1:123456789012:orders", ""},
		{"arn:aws:sqs:us-east-1:999999999999:orders.fifo", ""}, // the account is CheckPlaces' question
		{"orders", "a bare name"},
		{"arn:aws-cn:sqs:cn-north-1:123456789012:orders", `partition "aws-cn"`},
		{"arn:aws-us-gov:sqs:us-gov-west-1:123456789012:orders", `partition "aws-us-gov"`},
		{"arn:aws:sns:us-east-1:123456789012:orders", `service "sns"`},
		{"arn:aws:sqs:eu-west-1:123456789012:orders", "--region eu-west-1"},
		{"arn:aws:sqs:us-east-1:12345:orders", "malformed"},
		{"arn:aws:sqs:us-east-1:123456789012:a/b", "malformed"},
		{"garbage:x", "not an ARN"},
	} {
		got := SourceProblem(tt.src, h)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("SourceProblem(%q) = %q, want %q", tt.src, got, tt.want)
		}
	}
}

// An operator in a partition beyond aws, aws-cn and aws-us-gov replays
// the files of its own partition: its regions and ARNs are known.
func TestSourceProblemInEveryPartition(t *testing.T) {
	for region, part := range map[string]string{"us-isob-east-1": "aws-iso-b", "eusc-de-east-1": "aws-eusc", "us-iso-east-1": "aws-iso",
		"eu-isoe-west-1": "aws-iso-e", "us-isof-south-1": "aws-iso-f"} {
		if got := PartitionOf(region); got != part {
			t.Errorf("PartitionOf(%s) = %s, want %s", region, got, part)
		}
		h := Home{Place: Place{Account: "123456789012", Region: region}, Partition: PartitionOf(region)}
		if p := SourceProblem("arn:"+part+":sqs:"+region+":123456789012:orders", h); p != "" {
			t.Errorf("%s: %s", region, p)
		}
		if p := SourceProblem("arn:aws:sqs:us-east-1:123456789012:orders", h); !strings.Contains(p, `partition "aws"`) {
			t.Errorf("%s: an aws ARN: %q", region, p)
		}
	}
}

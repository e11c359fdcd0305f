package cmd

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/rogpeppe/go-internal/testscript"
)

// sqs-attrs QUEUE drains QUEUE and writes each message to stdout as the
// consumer receives it: its body, a tab, then its message attributes as
// NAME=VALUE sorted by name; lines sorted.
func cmdSQSAttrs(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: sqs-attrs QUEUE")
	}
	s := seeder(ts)
	u, err := s.SQS.GetQueueUrl(context.Background(), getURL(args[0]))
	ts.Check(err)
	msgs, err := s.Drain(context.Background(), *u.QueueUrl)
	ts.Check(err)
	var lines []string
	for _, m := range msgs {
		var attrs []string
		for k, a := range m.MessageAttributes {
			attrs = append(attrs, k+"="+aws.ToString(a.StringValue))
		}
		sort.Strings(attrs)
		lines = append(lines, aws.ToString(m.Body)+"\t"+strings.Join(attrs, " "))
	}
	sort.Strings(lines)
	for _, l := range lines {
		fmt.Fprintln(ts.Stdout(), l)
	}
}

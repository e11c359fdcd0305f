package target

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	awsarn "github.com/aws/aws-sdk-go-v2/aws/arn"
)

// The plan's words for a target, beside the code that reads it.

// TopicLines describe a redrive to the topic name: what is published, what
// the canary cannot prove, a FIFO topic's group and deduplication id, and
// fanOut (FanOutLine) when the DLQ belongs to one of its subscriptions.
func TopicLines(name string, canaryWait time.Duration, fifo bool, fanOut string) []string {
	lines := []string{fmt.Sprintf("SNS topic %s: Publish of each notification's Message, Subject and message attributes (a message that is no notification: its body and attributes)", name),
		"what the canary cannot prove: it waits " + canaryWait.String() + ", and a subscriber queue fails a message back only after its visibility timeout × maxReceiveCount; mfdlq verify waits each subscriber's window and says when to look again"}
	if fifo {
		lines = append(lines, "FIFO topic: each message's own MessageGroupId, deduplication id mfdlq-<DLQ MessageId>")
	}
	if fanOut != "" {
		lines = append(lines, fanOut)
	}
	return lines
}

// VersionText names what an invocation of a function at qualifier q runs
// (version is what q resolves to).
func VersionText(q, version string) string {
	switch {
	case q == "":
		return "$LATEST (unqualified)"
	case q == "$LATEST":
		return "$LATEST"
	case isDigits(q):
		return "version " + q
	}
	return "alias " + q + " → version " + version
}

func isDigits(s string) bool {
	_, err := strconv.ParseUint(s, 10, 64)
	return err == nil
}

// Lines describe a redrive to the function name invoked at qualifier q.
func (f TargetFunction) Lines(name, q string) []string {
	return []string{
		fmt.Sprintf("Lambda function %s, %s, invoked asynchronously (InvocationType Event) with each message's original payload", name, VersionText(q, f.Version)),
		fmt.Sprintf("its asynchronous configuration: %d retries, events older than %s dropped; a failure goes to its DLQ or on-failure destination again", f.Retries, f.MaxAge),
		fmt.Sprintf("what the canary cannot prove: it waits out the retries (%s), but a throttled event can still fail back until it is %s old; mfdlq verify waits that out and says when to look again", f.FailureTime(), f.MaxAge),
	}
}

// BusLines describe a redrive to the bus name, and the rules' targets
// whose own DLQ is the DLQ (returns).
func BusLines(name string, canaryWait time.Duration, dlqName string, returns []BusReturn) []string {
	lines := []string{fmt.Sprintf("EventBridge bus %s: PutEvents of each event's source, detail-type, detail, resources and time; every rule on the bus that matches sees it again", name),
		"a message that holds no EventBridge event fails and stays in the DLQ",
		"what the canary cannot prove: it waits " + canaryWait.String() + ", and a rule's target queue fails a message back only after its visibility timeout × maxReceiveCount; mfdlq verify waits that window and says when to look again"}
	for _, r := range returns {
		lines = append(lines, fmt.Sprintf("rule %s's target %s has %s as its DLQ: an event it fails to take again comes back there, under a new MessageId", r.Rule, r.Target, dlqName))
	}
	return lines
}

// FunctionRef splits a function reference into the function and its
// qualifier: "orders:live", "arn:aws:lambda:R:A:function:orders:7".
func FunctionRef(ref string) (fn, qualifier string) {
	if a, err := awsarn.Parse(ref); err == nil {
		// The resource is function:NAME[:QUALIFIER].
		if parts := strings.Split(a.Resource, ":"); len(parts) == 3 {
			a.Resource = parts[0] + ":" + parts[1]
			return a.String(), parts[2]
		}
		return ref, ""
	}
	if strings.HasPrefix(ref, "arn:") {
		return ref, ""
	}
	fn, qualifier, _ = strings.Cut(ref, ":")
	return fn, qualifier
}

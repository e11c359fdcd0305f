package target

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsarn "github.com/aws/aws-sdk-go-v2/aws/arn"
	"github.com/aws/aws-sdk-go-v2/service/sns"

	"github.com/mfdlq/mfdlq/untrusted"
)

// A DLQ named by an SNS subscription's RedrivePolicy holds what SNS failed
// to deliver to that one endpoint: published to the topic again, every
// other subscriber would get it a second time. So the subscription is
// found and its endpoint is the default destination.

// SubscriptionsAPI is the SNS calls that find the subscription whose
// RedrivePolicy names a DLQ, with the SDK's signatures.
type SubscriptionsAPI interface {
	ListSubscriptions(ctx context.Context, in *sns.ListSubscriptionsInput, optFns ...func(*sns.Options)) (*sns.ListSubscriptionsOutput, error)
	GetSubscriptionAttributes(ctx context.Context, in *sns.GetSubscriptionAttributesInput, optFns ...func(*sns.Options)) (*sns.GetSubscriptionAttributesOutput, error)
}

var _ SubscriptionsAPI = (*sns.Client)(nil)

// Subscription is an SNS subscription whose RedrivePolicy names the DLQ.
type Subscription struct {
	ARN, TopicARN string
	// Protocol is SNS's: sqs, lambda, http, https, email, email-json,
	// sms, firehose or application.
	Protocol, Endpoint string
	// Raw is RawMessageDelivery: the endpoint got the published message
	// itself, not SNS's JSON envelope.
	Raw bool
}

// The bounds of the search: ListSubscriptions gives 100 a page, and each
// subscription of the DLQ's account and region costs one
// GetSubscriptionAttributes. SNS throttles its API per account and region
// (the SDK's retries absorb a throttle), so a few are read at once.
const (
	maxSubscriptionPages = 50
	maxAttributeReads    = 2000
	attributeReadsAtOnce = 4
)

// ErrSubscriptionsUnchecked is a search that stopped at its bound: what it
// found is returned, and the caller says the search was partial.
var ErrSubscriptionsUnchecked = errors.New("too many subscriptions to read them all")

// DLQSubscriptions lists the subscriptions whose RedrivePolicy names
// dlqARN. Only those of the DLQ's own account and region are read: SNS
// requires its subscription and DLQ to share both. A subscription deleted
// between the list and the read is skipped; any other error ends the
// search with what was found (a refusal is the caller's warning).
func DLQSubscriptions(ctx context.Context, c SubscriptionsAPI, dlqARN string) ([]Subscription, error) {
	dlq, err := awsarn.Parse(dlqARN)
	if err != nil {
		return nil, fmt.Errorf("the DLQ's ARN %q: %w", dlqARN, err)
	}
	var found []Subscription
	reads := 0
	in := &sns.ListSubscriptionsInput{}
	for page := 0; ; page++ {
		if page == maxSubscriptionPages {
			return found, fmt.Errorf("%w (over %d pages)", ErrSubscriptionsUnchecked, maxSubscriptionPages)
		}
		out, err := c.ListSubscriptions(ctx, in)
		if err != nil {
			return found, fmt.Errorf("list the SNS subscriptions: %w", err)
		}
		var arns []string
		for _, s := range out.Subscriptions {
			arn := aws.ToString(s.SubscriptionArn)
			if a, err := awsarn.Parse(arn); err == nil && a.AccountID == dlq.AccountID && a.Region == dlq.Region {
				arns = append(arns, arn) // not PendingConfirmation, nor elsewhere
			}
		}
		bounded := reads+len(arns) > maxAttributeReads
		arns = arns[:min(len(arns), maxAttributeReads-reads)]
		reads += len(arns)
		subs, err := readSubscriptions(ctx, c, arns, dlqARN)
		found = append(found, subs...)
		switch {
		case err != nil:
			return found, err
		case bounded:
			return found, fmt.Errorf("%w (read %d)", ErrSubscriptionsUnchecked, reads)
		case aws.ToString(out.NextToken) == "":
			return found, nil
		}
		in.NextToken = out.NextToken
	}
}

// readSubscriptions reads arns, attributeReadsAtOnce at a time, and keeps
// those whose RedrivePolicy names dlqARN, in order; the first error (in
// order) is returned with what was found before it.
func readSubscriptions(ctx context.Context, c SubscriptionsAPI, arns []string, dlqARN string) ([]Subscription, error) {
	type result struct {
		sub Subscription
		ok  bool
		err error
	}
	results := make([]result, len(arns))
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(attributeReadsAtOnce, len(arns)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				r := &results[i]
				r.sub, r.ok, r.err = readSubscription(ctx, c, arns[i], dlqARN)
			}
		}()
	}
	for i := range arns {
		work <- i
	}
	close(work)
	wg.Wait()
	var found []Subscription
	for _, r := range results {
		if r.err != nil {
			return found, r.err
		}
		if r.ok {
			found = append(found, r.sub)
		}
	}
	return found, nil
}

// readSubscription reads one subscription; ok when its RedrivePolicy names
// dlqARN.
func readSubscription(ctx context.Context, c SubscriptionsAPI, arn, dlqARN string) (Subscription, bool, error) {
	out, err := c.GetSubscriptionAttributes(ctx, &sns.GetSubscriptionAttributesInput{SubscriptionArn: aws.String(arn)})
	if IsNotFound(err) {
		return Subscription{}, false, nil
	}
	if err != nil {
		return Subscription{}, false, fmt.Errorf("read subscription %s: %w", arn, err)
	}
	a := out.Attributes
	var policy struct {
		DeadLetterTargetArn string `json:"deadLetterTargetArn"`
	}
	if json.Unmarshal([]byte(a["RedrivePolicy"]), &policy) != nil || policy.DeadLetterTargetArn != dlqARN {
		return Subscription{}, false, nil
	}
	return Subscription{ARN: arn, TopicARN: a["TopicArn"], Protocol: a["Protocol"], Endpoint: a["Endpoint"],
		Raw: a["RawMessageDelivery"] == "true"}, true, nil
}

// RouteError is a subscription DLQ mfdlq will not redrive by default: its
// endpoint is one mfdlq cannot deliver to (a refusal), or several
// subscriptions share the DLQ (Usage: the operator must choose).
type RouteError struct {
	Reason, Fix string
	Usage       bool
}

func (e *RouteError) Error() string { return e.Reason + ": " + e.Fix }

// Route is where a subscription DLQ's messages go by default: the one
// subscription's endpoint, as a --to would name it.
type Route struct {
	Sub Subscription
	// To is the endpoint as --to names it: the queue's ARN, or
	// lambda:FUNCTION_ARN; Kind and Ref are the target ("" for a queue).
	To, Kind, Ref string
	// Lines say, for the plan, which subscription and how it is delivered.
	Lines []string
}

// RouteOf is the default destination of the DLQ named dlqName that subs'
// RedrivePolicy names: nil when none does.
func RouteOf(dlqName string, subs []Subscription) (*Route, error) {
	switch {
	case len(subs) == 0:
		return nil, nil
	case len(subs) > 1:
		return nil, shared(dlqName, subs)
	}
	s := subs[0]
	named := fmt.Sprintf("%s is the DLQ of SNS subscription %s of topic %s", dlqName, clean(s.ARN), topicName(s.TopicARN))
	switch s.Protocol {
	case "sqs":
		how := "raw message delivery off: each message is the SNS envelope SNS would have delivered, sent as it is (its signature intact)"
		if s.Raw {
			how = "raw message delivery on: each message is the published body and attributes SNS would have delivered, sent as they are"
		}
		return &Route{Sub: s, To: s.Endpoint, Lines: []string{
			named + ": its messages go back to that subscription's endpoint only, the queue " + clean(s.Endpoint) + ", not to the topic's other subscribers",
			how,
			"SNS failed to deliver them there (a queue policy that refuses SNS, a KMS key SNS may not use, a queue that was gone): fix that first, or the next notifications fail the same way",
		}}, nil
	case "lambda":
		return &Route{Sub: s, To: "lambda:" + s.Endpoint, Kind: "lambda", Ref: s.Endpoint, Lines: []string{
			named + ": its messages go back to that subscription's endpoint only, the function " + clean(s.Endpoint) + ", not to the topic's other subscribers",
			"each is invoked as SNS invokes a subscriber: asynchronously, with the event {\"Records\":[{\"EventSource\":\"aws:sns\",…,\"Sns\":<the notification>}]}; a message that holds no SNS notification fails and stays in the DLQ",
		}}, nil
	}
	return nil, &RouteError{
		Reason: fmt.Sprintf("%s (%s endpoint %s): mfdlq cannot deliver to a %s endpoint", named, clean(s.Protocol), untrusted.Shorten(clean(s.Endpoint), 200), clean(s.Protocol)),
		Fix:    fmt.Sprintf("publish to the topic with --to sns:%s (every subscriber of %s gets each message again, not only this endpoint), or export them with mfdlq export --queue %s and deliver them yourself", topicName(s.TopicARN), topicName(s.TopicARN), dlqName),
	}
}

// shared is the refusal of a DLQ several subscriptions name: its messages
// may belong to any of them, and none tells which.
func shared(dlqName string, subs []Subscription) *RouteError {
	names := make([]string, 0, min(len(subs), 5))
	for _, s := range subs[:min(len(subs), 5)] {
		names = append(names, fmt.Sprintf("%s (%s %s)", clean(s.ARN), clean(s.Protocol), untrusted.Shorten(clean(s.Endpoint), 120)))
	}
	if len(subs) > 5 {
		names = append(names, fmt.Sprintf("and %d more", len(subs)-5))
	}
	return &RouteError{Usage: true,
		Reason: fmt.Sprintf("%s is the DLQ of %d SNS subscriptions: %s; nothing tells which endpoint each message failed at", dlqName, len(subs), strings.Join(names, ", ")),
		Fix:    "name the destination with --to (an endpoint's queue or lambda:FUNCTION, knowing the others' messages go there too, or sns:TOPIC, where every subscriber gets each one)",
	}
}

// FanOutLine is the plan's line for a redrive to topicArn of a DLQ that
// subs' RedrivePolicy names: every subscriber gets each message again, not
// only the endpoint that failed. "" when no subscription of that topic
// names the DLQ.
func FanOutLine(topicArn string, subscribers int, subs []Subscription) string {
	for _, s := range subs {
		if s.TopicARN == topicArn {
			return fmt.Sprintf("fan-out: every one of %s's %d subscribers gets each message, not only the failed endpoint %s (%s %s); without --to mfdlq delivers to that endpoint alone",
				topicName(topicArn), subscribers, untrusted.Shorten(clean(s.Endpoint), 200), clean(s.Protocol), clean(s.ARN))
		}
	}
	return ""
}

// topicName is a topic ARN's name (the ARN when it is none).
func topicName(arn string) string {
	if a, err := awsarn.Parse(arn); err == nil {
		return clean(a.Resource)
	}
	return clean(arn)
}

// clean makes an AWS name safe for a terminal line.
func clean(s string) string { return untrusted.Terminal(s) }

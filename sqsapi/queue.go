package sqsapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/arn"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/awserr"
)

// Queue is a resolved queue: where it is, what it is, and its attributes as
// read by the last GetQueueAttributes.
type Queue struct {
	Name       string
	URL        string
	ARN        string
	Account    string
	Region     string
	FIFO       bool
	Attributes map[string]string
	// RedrivePolicy is the queue's own redrive policy (it has a DLQ), or nil.
	RedrivePolicy *RedrivePolicy
	Depth         Depth
	Visibility    time.Duration
	Retention     time.Duration
}

// Depth is a queue's approximate message counts.
type Depth struct {
	Visible  int64 `json:"visible"`
	InFlight int64 `json:"in_flight"`
	Delayed  int64 `json:"delayed"`
}

// Total is every message the queue holds.
func (d Depth) Total() int64 { return d.Visible + d.InFlight + d.Delayed }

// RedrivePolicy is a source queue's pointer to its DLQ.
type RedrivePolicy struct {
	DeadLetterTargetArn string `json:"deadLetterTargetArn"`
	MaxReceiveCount     int    `json:"maxReceiveCount"`
}

// UnmarshalJSON accepts maxReceiveCount as a number or a string: the console
// and CloudFormation write numbers, some tools and moto write strings.
func (p *RedrivePolicy) UnmarshalJSON(b []byte) error {
	var raw struct {
		DeadLetterTargetArn string          `json:"deadLetterTargetArn"`
		MaxReceiveCount     json.RawMessage `json:"maxReceiveCount"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	p.DeadLetterTargetArn = raw.DeadLetterTargetArn
	s := strings.Trim(string(raw.MaxReceiveCount), `"`)
	if s == "" || s == "null" {
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("maxReceiveCount %s: %w", raw.MaxReceiveCount, err)
	}
	p.MaxReceiveCount = n
	return nil
}

var queueNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,80}$`)

// ref is a parsed --queue value.
type ref struct {
	name    string
	url     string // set when given as a URL
	account string // set when given as an ARN or URL
	region  string // set when given as an ARN or a real-AWS URL
}

func parseRef(s string) (ref, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return ref{}, &InvalidQueueRefError{Ref: s, Reason: "empty: give a queue name, URL or ARN"}
	case strings.HasPrefix(s, "arn:"):
		return parseARN(s)
	case strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://"):
		return parseURL(s)
	}
	if err := checkName(s); err != nil {
		return ref{}, &InvalidQueueRefError{Ref: s, Reason: err.Error()}
	}
	return ref{name: s}, nil
}

func checkName(name string) error {
	if !queueNameRE.MatchString(strings.TrimSuffix(name, ".fifo")) {
		return fmt.Errorf("not a queue name (1-80 letters, digits, - or _, optional .fifo), URL or ARN")
	}
	return nil
}

func parseARN(s string) (ref, error) {
	a, err := arn.Parse(s)
	if err != nil || a.Service != "sqs" || a.Region == "" || a.AccountID == "" {
		return ref{}, &InvalidQueueRefError{Ref: s, Reason: "not an SQS queue ARN (arn:aws:sqs:REGION:ACCOUNT:NAME)"}
	}
	if err := checkName(a.Resource); err != nil {
		return ref{}, &InvalidQueueRefError{Ref: s, Reason: err.Error()}
	}
	return ref{name: a.Resource, region: a.Region, account: a.AccountID}, nil
}

func parseURL(s string) (ref, error) {
	u, err := url.Parse(s)
	if err != nil {
		return ref{}, &InvalidQueueRefError{Ref: s, Reason: "not a queue URL: " + err.Error()}
	}
	segs := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(segs) < 2 || checkName(segs[len(segs)-1]) != nil {
		return ref{}, &InvalidQueueRefError{Ref: s, Reason: "not a queue URL (https://sqs.REGION.amazonaws.com/ACCOUNT/NAME)"}
	}
	r := ref{url: s, name: segs[len(segs)-1], account: segs[len(segs)-2]}
	// Real AWS hosts name their region: sqs.eu-west-1.amazonaws.com or the
	// legacy eu-west-1.queue.amazonaws.com, in every partition's domain.
	r.region = hostRegion(u.Hostname())
	return r, nil
}

// Resolve finds the queue that s names (a queue name, URL or ARN) in the
// client's account and region, and reads all its attributes. region is the
// client's region: an ARN or URL naming another region is refused, because
// acting on the wrong region's queue at 3 a.m. is the mistake to prevent.
func Resolve(ctx context.Context, c Client, s, region string) (*Queue, error) {
	r, err := parseRef(s)
	if err != nil {
		return nil, err
	}
	if r.region != "" && region != "" && r.region != region {
		return nil, &InvalidQueueRefError{Ref: s, Reason: fmt.Sprintf("names region %s but mfdlq is using %s: pass --region %s", r.region, region, r.region)}
	}
	u := r.url
	if u == "" {
		in := &sqs.GetQueueUrlInput{QueueName: aws.String(r.name)}
		if r.account != "" {
			in.QueueOwnerAWSAccountId = aws.String(r.account)
		}
		out, err := c.GetQueueUrl(ctx, in)
		if err != nil {
			return nil, notFoundOr(err, r.name, region)
		}
		u = aws.ToString(out.QueueUrl)
	}
	q := &Queue{Name: r.name, URL: u, Region: region, FIFO: strings.HasSuffix(r.name, ".fifo")}
	if err := Refresh(ctx, c, q); err != nil {
		return nil, notFoundOr(err, r.name, region)
	}
	return q, nil
}

func notFoundOr(err error, name, region string) error {
	if awserr.QueueMissing(err) {
		where := ""
		if region != "" {
			where = " in " + region
		}
		return fmt.Errorf("queue %s not found%s: check the name, --region and --profile: %w", name, where, ErrQueueNotFound)
	}
	return fmt.Errorf("queue %s: %w", name, err)
}

// AttributesAPI is the one call Refresh needs, so that packages with a
// smaller interface than Client can use it.
type AttributesAPI interface {
	GetQueueAttributes(ctx context.Context, in *sqs.GetQueueAttributesInput, optFns ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error)
}

// Refresh re-reads every attribute of q: depth, policy, timeouts.
func Refresh(ctx context.Context, c AttributesAPI, q *Queue) error {
	out, err := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
		QueueUrl:       aws.String(q.URL),
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameAll},
	})
	if err != nil {
		return err
	}
	return q.apply(out.Attributes)
}

// SameQueue tells whether a and b are one queue, however each was spelled
// (name, URL with any host, ARN): both are resolved, so their ARNs say.
// Without an ARN (a server that does not report QueueArn) the account and
// name decide; the URLs' hosts never do.
func SameQueue(a, b *Queue) bool {
	if a.ARN != "" && b.ARN != "" {
		return a.ARN == b.ARN
	}
	return a.Name == b.Name && (a.Account == "" || b.Account == "" || a.Account == b.Account)
}

// DeadLettersTo tells whether q's redrive policy sends its failed
// messages to dlq: q is one of dlq's source queues.
func (q *Queue) DeadLettersTo(dlq *Queue) bool {
	return q.RedrivePolicy != nil && q.RedrivePolicy.DeadLetterTargetArn == dlq.ARN
}

// Delay is the queue's DelaySeconds as the last GetQueueAttributes read
// it (0 when it has none): every message sent without its own delay is
// delivered only after it, so it belongs in every window that waits for a
// sent message to be received (and failed back).
func (q *Queue) Delay() time.Duration {
	n, err := strconv.Atoi(q.Attributes["DelaySeconds"])
	if err != nil || n < 0 {
		return 0
	}
	return time.Duration(n) * time.Second
}

// DepthFrom reads a queue's three approximate counts from its attributes
// (GetQueueAttributes' answer); a missing one counts as 0.
func DepthFrom(attrs map[string]string) Depth {
	return Depth{
		Visible:  atoi64(attrs["ApproximateNumberOfMessages"]),
		InFlight: atoi64(attrs["ApproximateNumberOfMessagesNotVisible"]),
		Delayed:  atoi64(attrs["ApproximateNumberOfMessagesDelayed"]),
	}
}

func (q *Queue) apply(attrs map[string]string) error {
	q.Attributes = attrs
	if s := attrs["QueueArn"]; s != "" {
		q.ARN = s
		if a, err := arn.Parse(s); err == nil {
			q.Region, q.Account = a.Region, a.AccountID
		}
	}
	q.FIFO = q.FIFO || attrs["FifoQueue"] == "true"
	q.Depth = DepthFrom(attrs)
	q.Visibility = time.Duration(atoi64(attrs["VisibilityTimeout"])) * time.Second
	q.Retention = time.Duration(atoi64(attrs["MessageRetentionPeriod"])) * time.Second
	q.RedrivePolicy = nil
	if p := attrs["RedrivePolicy"]; p != "" {
		var rp RedrivePolicy
		if err := json.Unmarshal([]byte(p), &rp); err != nil {
			return fmt.Errorf("queue %s: RedrivePolicy %q: %w", q.Name, p, err)
		}
		q.RedrivePolicy = &rp
	}
	return nil
}

func atoi64(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

// NameOf returns the queue name that a --queue value (name, URL or ARN)
// names, without calling AWS; it returns the value itself when it is none of
// those, for messages about it.
func NameOf(s string) string {
	r, err := parseRef(s)
	if err != nil {
		return s
	}
	return r.name
}

// NameFromARN returns the queue name at the end of an SQS ARN (s itself
// when it is no ARN).
func NameFromARN(s string) string {
	if a, err := arn.Parse(s); err == nil {
		return a.Resource
	}
	return s
}

package redrive

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"

	awsarn "github.com/aws/aws-sdk-go-v2/aws/arn"

	"github.com/mfdlq/mfdlq/lambdaapi"
	"github.com/mfdlq/mfdlq/redrive/mover"
	"github.com/mfdlq/mfdlq/redrive/target"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// Target kinds: the prefixes of --to that name something other than a queue.
const (
	KindLambda = "lambda"
	KindSNS    = "sns"
	KindEvents = "events"
)

// TargetRef is a --to naming a Lambda function, an SNS topic or an
// EventBridge bus: Kind is "" for an SQS queue.
type TargetRef struct {
	Kind string
	Ref  string // a name or an ARN, as given after the prefix
}

func (t TargetRef) String() string { return t.Kind + ":" + t.Ref }

// ParseTargetRef reads --to: "lambda:F", "sns:T", "events:B", or an ARN of
// one of those services; anything else is a queue (Kind ""). A malformed
// one is an ErrUsage error naming the fix, before any AWS call.
func ParseTargetRef(to string) (TargetRef, error) {
	for _, k := range []string{KindLambda, KindSNS, KindEvents} {
		if ref, ok := strings.CutPrefix(to, k+":"); ok {
			t := TargetRef{Kind: k, Ref: ref}
			return t, t.check()
		}
	}
	if svc := ARNService(to); svc == KindLambda || svc == KindSNS || svc == KindEvents {
		t := TargetRef{Kind: svc, Ref: to}
		return t, t.check()
	}
	return TargetRef{}, nil
}

// check refuses an empty or malformed name before any AWS call.
func (t TargetRef) check() error {
	what := map[string]string{KindLambda: "FUNCTION", KindSNS: "TOPIC", KindEvents: "BUS"}[t.Kind]
	switch {
	case t.Ref == "":
		return usagef("--to %s: names nothing: use --to %s:%s (a name or an ARN)", t.Kind, t.Kind, what)
	case strings.IndexFunc(t.Ref, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) >= 0:
		return usagef("--to %q: a %s name or ARN has no spaces or control characters", t.String(), strings.ToLower(what))
	case strings.HasPrefix(t.Ref, "arn:") && ARNService(t.Ref) != t.Kind:
		return usagef("--to %s: that is not a %s ARN (arn:aws:%s:REGION:ACCOUNT:…)", t.String(), t.Kind, t.Kind)
	case t.Kind == KindEvents && strings.HasPrefix(t.Ref, "arn:") && !strings.Contains(t.Ref, ":event-bus/"):
		return usagef("--to %s: an EventBridge bus ARN ends in :event-bus/NAME", t.String())
	}
	return nil
}

// IsTarget tells whether --to names a function, topic or bus (well formed
// or not: ParseTargetRef says what is wrong with it).
func IsTarget(to string) bool {
	t, err := ParseTargetRef(to)
	return err != nil || t.Kind != ""
}

// TargetKindOf is the target kind of a redrive's destination ARN (the
// journal's and the event's dest_url): lambda, sns or events; "" for a
// queue.
func TargetKindOf(destURL string) string {
	switch svc := ARNService(destURL); svc {
	case KindLambda, KindSNS, KindEvents:
		return svc
	}
	return ""
}

// ARNService is the service of an ARN ("" when s is not one).
func ARNService(s string) string {
	a, _ := awsarn.Parse(s)
	return a.Service
}

// arnRegion is the region of an ARN ("" when s is not one).
func arnRegion(s string) string {
	a, _ := awsarn.Parse(s)
	return a.Region
}

// openedTarget is a resolved target: what the mover sends to and how the
// plan names it.
type openedTarget struct {
	dest       *sqsapi.Queue // Name "sns:orders", URL the ARN: the journal's key
	target     mover.Target
	lines      []string      // the plan's description of the target
	canaryWait time.Duration // how long a canary's failures take to come back
}

// noDefaultTarget is the usage error of a DLQ whose destination is not
// certain: it names the candidates.
func noDefaultTarget(dlq *sqsapi.Queue, cands []originCandidate) error {
	if len(cands) == 0 {
		return usagef("%s is the DLQ of 0 queues and its messages name no origin: name the destination with --to QUEUE, lambda:FUNCTION, sns:TOPIC or events:BUS", dlq.Name)
	}
	names := make([]string, len(cands))
	for i, c := range cands {
		names[i] = fmt.Sprintf("--to %s (%s)", c.ref, c.why)
	}
	return usagef("%s's messages name %d origins: pick one with %s", dlq.Name, len(cands), strings.Join(names, ", or "))
}

// openTarget checks that the target exists and reads what the plan names.
func openTarget(ctx context.Context, env *Env, t TargetRef, dlq *sqsapi.Queue) (*openedTarget, error) {
	switch t.Kind {
	case KindSNS:
		return openTopic(ctx, env, t, dlq)
	case KindEvents:
		return openBus(ctx, env, t, dlq)
	}
	return openFunction(ctx, env, t, dlq)
}

// targetQueue is the stand-in queue a target is journaled and named as.
func targetQueue(kind, name, arn string, dlq *sqsapi.Queue) *sqsapi.Queue {
	acct := dlq.Account
	if a, err := awsarn.Parse(arn); err == nil && a.AccountID != "" {
		acct = a.AccountID
	}
	return &sqsapi.Queue{Name: kind + ":" + name, URL: arn, ARN: arn, Account: acct, Region: dlq.Region}
}

// partition is the ARN partition of the DLQ ("aws" when unknown).
func partition(dlq *sqsapi.Queue) string {
	if a, err := awsarn.Parse(dlq.ARN); err == nil && a.Partition != "" {
		return a.Partition
	}
	return "aws"
}

func openTopic(ctx context.Context, env *Env, t TargetRef, dlq *sqsapi.Queue) (*openedTarget, error) {
	c, err := env.SNS(ctx)
	if err != nil {
		return nil, err
	}
	arn := t.Ref
	if !strings.HasPrefix(arn, "arn:") {
		arn = fmt.Sprintf("arn:%s:sns:%s:%s:%s", partition(dlq), dlq.Region, dlq.Account, t.Ref)
	}
	fifo, err := target.ReadTopic(ctx, c, arn)
	if target.IsNotFound(err) {
		return nil, notFoundf("sns topic %s not found in account %s, region %s: check --to", arn, orUnknown(dlq.Account), orUnknown(dlq.Region))
	}
	if err != nil {
		return nil, fmt.Errorf("read topic %s: %w", arn, err)
	}
	n, err := target.TopicLoop(ctx, c, arn, dlq.Name, dlq.ARN)
	if err := loopCheck(env, err); err != nil {
		return nil, err
	}
	a, _ := awsarn.Parse(arn)
	ot := &openedTarget{dest: targetQueue(KindSNS, a.Resource, arn, dlq), target: target.NewSNSTarget(c, arn, fifo), canaryWait: time.Minute}
	ot.dest.FIFO = fifo
	ot.lines = target.TopicLines(a.Resource, ot.canaryWait, fifo, target.FanOutLine(arn, n, dlqSubscriptions(ctx, env, dlq)))
	return ot, nil
}

func openBus(ctx context.Context, env *Env, t TargetRef, dlq *sqsapi.Queue) (*openedTarget, error) {
	c, err := env.EventBridge(ctx)
	if err != nil {
		return nil, err
	}
	arn, name, err := target.ReadBus(ctx, c, t.Ref)
	if target.IsNotFound(err) {
		return nil, notFoundf("EventBridge bus %s not found in account %s, region %s: check --to", t.Ref, orUnknown(dlq.Account), orUnknown(dlq.Region))
	}
	if err != nil {
		return nil, fmt.Errorf("read bus %s: %w", t.Ref, err)
	}
	returns, err := target.BusLoop(ctx, c, arn, dlq.Name, dlq.ARN)
	if err := loopCheck(env, err); err != nil {
		return nil, err
	}
	ot := &openedTarget{dest: targetQueue(KindEvents, name, arn, dlq), target: target.NewEventsTarget(c, arn), canaryWait: time.Minute}
	ot.lines = target.BusLines(name, ot.canaryWait, dlq.Name, returns)
	return ot, nil
}

// loopCheck turns a loop check's answer into the protocol's: a loop is a
// refusal with its fix; a check the role may not make is a warning, as
// the plan's other reads are.
func loopCheck(env *Env, err error) error {
	var loop *target.LoopError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &loop):
		return &Refusal{Reason: loop.Error()}
	case sqsapi.IsUnsupportedOrDenied(err):
		env.Warn("loop not checked: %v", err)
		return nil
	}
	return err
}

// FunctionRef splits a function reference into the function and its
// qualifier (target.FunctionRef).
var FunctionRef = target.FunctionRef

func openFunction(ctx context.Context, env *Env, t TargetRef, dlq *sqsapi.Queue) (*openedTarget, error) {
	c, err := env.Lambda(ctx)
	if err != nil {
		return nil, err
	}
	fn, q := FunctionRef(t.Ref)
	f, err := target.ReadTargetFunction(ctx, c, fn, q)
	if target.IsNotFound(err) {
		return nil, notFoundf("Lambda function %s not found in account %s, region %s: check --to", t.Ref, orUnknown(dlq.Account), orUnknown(dlq.Region))
	}
	if err != nil {
		return nil, fmt.Errorf("read function %s: %w", t.Ref, err)
	}
	if f.ConfigErr != nil {
		env.Warn("asynchronous configuration of %s unknown (%v): assuming Lambda's defaults", fn, f.ConfigErr)
	}
	base, _ := FunctionRef(f.ARN)
	invoked := base
	if q != "" {
		invoked += ":" + q
	}
	name := lambdaapi.FunctionName(base)
	ot := &openedTarget{dest: targetQueue(KindLambda, name, invoked, dlq), target: target.NewLambdaTarget(c, invoked), canaryWait: f.FailureTime()}
	ot.lines = f.Lines(name, q)
	return ot, nil
}

// resolveSubscription is, for a DLQ an SNS subscription's RedrivePolicy
// names, the plan to that subscription's endpoint alone (target.RouteOf);
// nil when none does.
func resolveSubscription(ctx context.Context, env *Env, req Request, dlq *sqsapi.Queue) (*Plan, error) {
	r, err := target.RouteOf(dlq.Name, dlqSubscriptions(ctx, env, dlq))
	if r == nil || err != nil {
		return nil, err
	}
	req.To, req.Target = r.To, TargetRef{Kind: r.Kind, Ref: r.Ref}
	p, err := Resolve(ctx, env, req, dlq)
	if err != nil {
		return nil, err
	}
	d := p.Dest()
	d.TargetLines, p.Origin = append(r.Lines, d.TargetLines...), "SNS subscription "+r.Sub.ARN
	if lc, err := env.Lambda(ctx); err == nil && req.Target.Kind == KindLambda {
		d.Target = target.NewSNSSubscriberTarget(lc, d.Queue.URL, r.Sub.ARN)
	}
	return p, nil
}

// dlqSubscriptions are the SNS subscriptions whose RedrivePolicy names
// dlq; what could not be read is a warning.
func dlqSubscriptions(ctx context.Context, env *Env, dlq *sqsapi.Queue) (subs []target.Subscription) {
	c, err := env.SNS(ctx)
	if err == nil {
		if subs, err = target.DLQSubscriptions(ctx, c, dlq.ARN); err == nil {
			return subs
		}
	}
	env.Warn("SNS subscriptions whose DLQ is %s not all read (%v): a redrive to a topic reaches every one of its subscribers", dlq.Name, err)
	return subs
}

package cmd

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	awsarn "github.com/aws/aws-sdk-go-v2/aws/arn"

	"github.com/mfdlq/mfdlq/lambdaapi"
	"github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// openTarget checks that the target exists and reads what the plan names.
func (o *redriveOptions) openTarget(ctx context.Context, t targetRef, dlq *sqsapi.Queue) (*openedTarget, error) {
	switch t.kind {
	case targetSNS:
		return o.openTopic(ctx, t, dlq)
	case targetEvents:
		return o.openBus(ctx, t, dlq)
	}
	return o.openFunction(ctx, t, dlq)
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

// notFoundf is a target that does not exist: exit 5, as a missing queue.
func notFoundf(format string, args ...any) error {
	return &exitError{code: ExitNotFound, err: fmt.Errorf(format, args...)}
}

func (o *redriveOptions) openTopic(ctx context.Context, t targetRef, dlq *sqsapi.Queue) (*openedTarget, error) {
	c, err := o.deps.SNS(ctx)
	if err != nil {
		return nil, err
	}
	arn := t.ref
	if !strings.HasPrefix(arn, "arn:") {
		arn = fmt.Sprintf("arn:%s:sns:%s:%s:%s", partition(dlq), dlq.Region, dlq.Account, t.ref)
	}
	fifo, err := redrive.ReadTopic(ctx, c, arn)
	if redrive.IsNotFound(err) {
		return nil, notFoundf("sns topic %s not found in account %s, region %s: check --to", arn, orUnknown(dlq.Account), orUnknown(dlq.Region))
	}
	if err != nil {
		return nil, fmt.Errorf("read topic %s: %w", arn, err)
	}
	name := arn
	if a, err := awsarn.Parse(arn); err == nil {
		name = a.Resource
	}
	ot := &openedTarget{dest: targetQueue(targetSNS, name, arn, dlq), target: nil, canaryWait: time.Minute}
	ot.dest.FIFO = fifo
	ot.target = redrive.NewSNSTarget(c, arn, ot.dest.FIFO)
	ot.lines = []string{fmt.Sprintf("SNS topic %s: Publish of each notification's Message, Subject and message attributes (a message that is no notification: its body and attributes)", name)}
	if ot.dest.FIFO {
		ot.lines = append(ot.lines, "FIFO topic: each message's own MessageGroupId, deduplication id mfdlq-<DLQ MessageId>")
	}
	return ot, nil
}

func (o *redriveOptions) openBus(ctx context.Context, t targetRef, dlq *sqsapi.Queue) (*openedTarget, error) {
	c, err := o.deps.Events(ctx)
	if err != nil {
		return nil, err
	}
	arn, name, err := redrive.ReadBus(ctx, c, t.ref)
	if redrive.IsNotFound(err) {
		return nil, notFoundf("EventBridge bus %s not found in account %s, region %s: check --to", t.ref, orUnknown(dlq.Account), orUnknown(dlq.Region))
	}
	if err != nil {
		return nil, fmt.Errorf("read bus %s: %w", t.ref, err)
	}
	ot := &openedTarget{dest: targetQueue(targetEvents, name, arn, dlq), target: redrive.NewEventsTarget(c, arn), canaryWait: time.Minute}
	ot.lines = []string{fmt.Sprintf("EventBridge bus %s: PutEvents of each event's source, detail-type, detail, resources and time; every rule on the bus that matches sees it again", name),
		"a message that holds no EventBridge event fails and stays in the DLQ"}
	return ot, nil
}

// functionRef splits a function reference into the function and its
// qualifier: "orders:live", "arn:aws:lambda:R:A:function:orders:7".
func functionRef(ref string) (fn, qualifier string) {
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

func (o *redriveOptions) openFunction(ctx context.Context, t targetRef, dlq *sqsapi.Queue) (*openedTarget, error) {
	c, err := o.deps.Lambda(ctx)
	if err != nil {
		return nil, err
	}
	fn, q := functionRef(t.ref)
	f, err := redrive.ReadTargetFunction(ctx, c, fn, q)
	if redrive.IsNotFound(err) {
		return nil, notFoundf("Lambda function %s not found in account %s, region %s: check --to", t.ref, orUnknown(dlq.Account), orUnknown(dlq.Region))
	}
	if err != nil {
		return nil, fmt.Errorf("read function %s: %w", t.ref, err)
	}
	if f.ConfigErr != nil {
		o.deps.warnf("asynchronous configuration of %s unknown (%v): assuming Lambda's defaults", fn, f.ConfigErr)
	}
	base, _ := functionRef(f.ARN)
	invoked := base
	if q != "" {
		invoked += ":" + q
	}
	name := lambdaapi.FunctionName(base)
	ot := &openedTarget{dest: targetQueue(targetLambda, name, invoked, dlq), target: redrive.NewLambdaTarget(c, invoked), canaryWait: f.FailureTime()}
	ot.lines = []string{
		fmt.Sprintf("Lambda function %s, %s, invoked asynchronously (InvocationType Event) with each message's original payload", name, versionText(q, f.Version)),
		fmt.Sprintf("its asynchronous configuration: %d retries, events older than %s dropped; a failure goes to its DLQ or on-failure destination again", f.Retries, f.MaxAge),
	}
	return ot, nil
}

// versionText names what an invocation runs.
func versionText(q, version string) string {
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

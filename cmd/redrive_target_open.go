package cmd

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

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
	if parts := strings.SplitN(arn, ":", 6); len(parts) == 6 && parts[4] != "" {
		acct = parts[4]
	}
	return &sqsapi.Queue{Name: kind + ":" + name, URL: arn, ARN: arn, Account: acct, Region: dlq.Region}
}

// partition is the ARN partition of the DLQ ("aws" when unknown).
func partition(dlq *sqsapi.Queue) string {
	if parts := strings.SplitN(dlq.ARN, ":", 3); len(parts) == 3 && parts[1] != "" {
		return parts[1]
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
	if err := o.loopCheck(redrive.TopicLoop(ctx, c, arn, dlq.Name, dlq.ARN)); err != nil {
		return nil, err
	}
	name := arn[strings.LastIndex(arn, ":")+1:]
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
	returns, err := redrive.BusLoop(ctx, c, arn, dlq.Name, dlq.ARN)
	if err := o.loopCheck(err); err != nil {
		return nil, err
	}
	ot := &openedTarget{dest: targetQueue(targetEvents, name, arn, dlq), target: redrive.NewEventsTarget(c, arn), canaryWait: time.Minute}
	ot.lines = []string{fmt.Sprintf("EventBridge bus %s: PutEvents of each event's source, detail-type, detail, resources and time; every rule on the bus that matches sees it again", name),
		"a message that holds no EventBridge event fails and stays in the DLQ"}
	for _, r := range returns {
		ot.lines = append(ot.lines, fmt.Sprintf("rule %s's target %s has %s as its DLQ: an event it fails to take again comes back there, under a new MessageId", r.Rule, r.Target, dlq.Name))
	}
	return ot, nil
}

// functionRef splits a function reference into the function and its
// qualifier: "orders:live", "arn:aws:lambda:R:A:function:orders:7".
func functionRef(ref string) (fn, qualifier string) {
	if strings.HasPrefix(ref, "arn:") {
		parts := strings.Split(ref, ":")
		if len(parts) == 8 {
			return strings.Join(parts[:7], ":"), parts[7]
		}
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
	name := base[strings.LastIndex(base, ":")+1:]
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

// loopCheck turns a loop check's answer into the command's: a loop is
// refused (exit 3) with its fix; a check the role may not make is a
// warning, as the other reads of a plan.
func (o *redriveOptions) loopCheck(err error) error {
	var loop *redrive.LoopError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &loop):
		return checkFailedf("refusing: %v", loop)
	case sqsapi.IsUnsupportedOrDenied(err):
		o.deps.warnf("loop not checked: %v", err)
		return nil
	}
	return err
}

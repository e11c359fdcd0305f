package cmd

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"

	awsarn "github.com/aws/aws-sdk-go-v2/aws/arn"

	"github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// Target kinds: the prefixes of --to that name something other than a queue.
const (
	targetLambda = "lambda"
	targetSNS    = "sns"
	targetEvents = "events"
)

// targetRef is a --to naming a Lambda function, an SNS topic or an
// EventBridge bus: kind is "" for an SQS queue.
type targetRef struct {
	kind string
	ref  string // a name or an ARN, as given after the prefix
}

func (t targetRef) String() string { return t.kind + ":" + t.ref }

// parseTargetRef reads --to: "lambda:F", "sns:T", "events:B", or an ARN of
// one of those services; anything else is a queue (kind "").
func parseTargetRef(to string) (targetRef, error) {
	for _, k := range []string{targetLambda, targetSNS, targetEvents} {
		if ref, ok := strings.CutPrefix(to, k+":"); ok {
			t := targetRef{kind: k, ref: ref}
			return t, t.check()
		}
	}
	if svc := arnService(to); svc == targetLambda || svc == targetSNS || svc == targetEvents {
		t := targetRef{kind: svc, ref: to}
		return t, t.check()
	}
	return targetRef{}, nil
}

// check refuses an empty or malformed name before any AWS call.
func (t targetRef) check() error {
	what := map[string]string{targetLambda: "FUNCTION", targetSNS: "TOPIC", targetEvents: "BUS"}[t.kind]
	switch {
	case t.ref == "":
		return usageErrorf("--to %s: names nothing: use --to %s:%s (a name or an ARN)", t.kind, t.kind, what)
	case strings.IndexFunc(t.ref, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) >= 0:
		return usageErrorf("--to %q: a %s name or ARN has no spaces or control characters", t.String(), strings.ToLower(what))
	case strings.HasPrefix(t.ref, "arn:") && arnService(t.ref) != t.kind:
		return usageErrorf("--to %s: that is not a %s ARN (arn:aws:%s:REGION:ACCOUNT:…)", t.String(), t.kind, t.kind)
	case t.kind == targetEvents && strings.HasPrefix(t.ref, "arn:") && !strings.Contains(t.ref, ":event-bus/"):
		return usageErrorf("--to %s: an EventBridge bus ARN ends in :event-bus/NAME", t.String())
	}
	return nil
}

// isTarget tells whether --to names a function, topic or bus (well formed
// or not: parseTarget says what is wrong with it).
func isTarget(to string) bool {
	t, err := parseTargetRef(to)
	return err != nil || t.kind != ""
}

// arnService is the service of an ARN ("" when s is not one).
func arnService(s string) string {
	a, _ := awsarn.Parse(s)
	return a.Service
}

// arnRegion is the region of an ARN ("" when s is not one).
func arnRegion(s string) string {
	a, _ := awsarn.Parse(s)
	return a.Region
}

// parseTarget validates --to when it names a target, and the flags that
// make no sense for one.
func (o *redriveOptions) parseTarget() error {
	t, err := parseTargetRef(o.To)
	if err != nil || t.kind == "" {
		return err
	}
	switch {
	case o.Native:
		return usageErrorf("--native moves to SQS queues only: drop --native to redrive to %s", t)
	case o.MaxBacklog > 0:
		return usageErrorf("--max-backlog reads a destination queue's depth; %s has none: drop --max-backlog", t)
	}
	o.target = t
	return nil
}

// openedTarget is a resolved target: what the mover sends to and how the
// plan names it.
type openedTarget struct {
	dest       *sqsapi.Queue // Name "sns:orders", URL the ARN: the journal's key
	target     redrive.Target
	lines      []string      // the plan's description of the target
	canaryWait time.Duration // how long a canary's failures take to come back
}

// resolveTarget builds the plan of a redrive to a function, topic or bus:
// the one --to names, or the one the DLQ's messages name when --to is
// omitted and the DLQ is no queue's DLQ. ok is false when the destination
// is a queue: resolve goes on as before.
func (o *redriveOptions) resolveTarget(ctx context.Context, client sqsapi.Client, dlq *sqsapi.Queue) (p *redrivePlan, ok bool, err error) {
	t, proposed := o.target, false
	if o.To == "" {
		sources, err := sqsapi.SourceQueues(ctx, client, dlq)
		if err != nil || len(sources) > 0 {
			return nil, err != nil, err
		}
		cands, err := o.originCandidates(ctx, client, dlq)
		if err != nil {
			return nil, true, err
		}
		if len(cands) != 1 {
			return nil, true, noDefaultTarget(dlq, cands)
		}
		t, proposed = cands[0].ref, true
		o.deps.infof("destination: %s, proposed by %s; --to names another", t, cands[0].why)
	}
	if t.kind == "" {
		return nil, false, nil
	}
	if region := arnRegion(t.ref); region != "" && region != dlq.Region && dlq.Region != "" {
		return nil, true, usageErrorf("--to %s is in region %s, the DLQ in %s: mfdlq redrives within one region", t, region, dlq.Region)
	}
	ot, err := o.openTarget(ctx, t, dlq)
	if err != nil {
		return nil, true, err
	}
	p = &redrivePlan{dlq: dlq, dest: ot.dest, backlog: int(dlq.Depth.Total()), workers: o.workers(), target: ot.target, targetLines: ot.lines}
	p.bound = p.backlog
	if o.Max > 0 {
		p.bound = min(o.Max, p.backlog)
	}
	p.canary = o.Canary
	if p.canary < 0 {
		// As for a queue: a canary by default only towards where the
		// messages came from, whose consumer failed them.
		p.canary = map[bool]int{true: 10, false: 0}[proposed]
	}
	p.canary = min(p.canary, p.bound)
	p.wait = o.CanaryWait
	if p.wait == 0 {
		p.wait = ot.canaryWait
	}
	return p, true, nil
}

// noDefaultTarget is the usage error of a DLQ whose destination is not
// certain: it names the candidates.
func noDefaultTarget(dlq *sqsapi.Queue, cands []originCandidate) error {
	if len(cands) == 0 {
		return usageErrorf("%s is the DLQ of 0 queues and its messages name no origin: name the destination with --to QUEUE, lambda:FUNCTION, sns:TOPIC or events:BUS", dlq.Name)
	}
	names := make([]string, len(cands))
	for i, c := range cands {
		names[i] = fmt.Sprintf("--to %s (%s)", c.ref, c.why)
	}
	return usageErrorf("%s's messages name %d origins: pick one with %s", dlq.Name, len(cands), strings.Join(names, ", or "))
}

// destText names the destination in the line that names account and region.
func (p *redrivePlan) destText() string {
	if p.target == nil {
		return "queue " + p.dest.Name
	}
	return p.dest.Name + " (" + p.dest.URL + ")"
}

// printTarget describes a target under the destination line.
func (o *redriveOptions) printTarget(p *redrivePlan) {
	for _, l := range p.targetLines {
		o.deps.infof("target: %s", l)
	}
}

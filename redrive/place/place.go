// Package place is where a queue, a target or the operator is — account,
// region, partition — and the rules that keep a redrive inside the DLQ's
// own account unless the operator says otherwise: a destination proposed
// by message content (CheckProposed), one named in another account
// (CrossAccount), and a replay's recorded sources (SourceProblem). redrive
// and cmd use it; it imports nothing of mfdlq's but plural and sqsapi.
package place

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws/arn"

	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// Place is where a queue or target lives: its account and region ("" when
// unknown, as a name with no ARN).
type Place struct{ Account, Region string }

// Of reads the account and region of an ARN; ok is false when s is
// not one.
func Of(s string) (p Place, ok bool) {
	a, err := arn.Parse(s)
	if err != nil {
		return Place{}, false
	}
	return Place{Account: a.AccountID, Region: a.Region}, true
}

// proposedOutsideError is a destination that message content proposed in
// another account or region than the DLQ's. Anyone who can send to the
// queue writes a message's TopicArn, functionArn or RULE_ARN: mfdlq never
// lets one choose where messages go outside the DLQ's own account and
// region.
type proposedOutsideError struct {
	Dest      string
	DestPlace Place
	DLQ       string
	DLQPlace  Place
	// Why is what proposed it ("the TopicArn of 4 messages looked at").
	Why string
}

func (e *proposedOutsideError) Error() string {
	return fmt.Sprintf("%s's messages propose %s (%s), in account %s, region %s; %s is in account %s, region %s: a message never picks a destination outside the DLQ's account and region; name it yourself with --to if it is right",
		e.DLQ, e.Dest, e.Why, e.DestPlace.Account, e.DestPlace.Region, e.DLQ, e.DLQPlace.Account, e.DLQPlace.Region)
}

// CheckProposed refuses a destination proposed from message content
// (destARN) outside the DLQ's account and region. A destination named by
// name, not ARN, is resolved in the DLQ's own account and region: it
// passes.
func CheckProposed(dlqName string, dlq Place, dest, why string) error {
	p, ok := Of(dest)
	if !ok {
		return nil
	}
	if p.Account != dlq.Account || p.Region != dlq.Region {
		return &proposedOutsideError{Dest: dest, DestPlace: p, DLQ: dlqName, DLQPlace: dlq, Why: why}
	}
	return nil
}

// CrossAccount is the plan's line for a destination the operator named in
// another account than the DLQ's, "" when both are in one account (or
// either account is unknown). The confirmation then names both accounts:
// an account boundary is crossed only when the operator says so.
func CrossAccount(dlqName string, dlq Place, destName string, dest Place) string {
	if dlq.Account == "" || dest.Account == "" || dlq.Account == dest.Account {
		return ""
	}
	return fmt.Sprintf("%s is in account %s, the DLQ %s in account %s: the messages leave the DLQ's account", destName, dest.Account, dlqName, dlq.Account)
}

// Home is where the operator is: the account of the credentials in use
// (STS GetCallerIdentity), the region in use and their partition. A
// replay's recorded sources are data: each is weighed against it.
type Home struct {
	Place
	Partition string
}

// PartitionOf is the partition of a region, when STS's answer names none
// (sqsapi.PartitionOf: aws, aws-cn, aws-us-gov, the ISO partitions,
// aws-eusc).
func PartitionOf(region string) string { return sqsapi.PartitionOf(region) }

var (
	accountRE = regexp.MustCompile(`^[0-9]{12}$`)
	queueRE   = regexp.MustCompile(`^[A-Za-z0-9_-]{1,80}(\.fifo)?$`)
	regionRE  = sqsapi.RegionRE
)

// ValidAccount checks an --allow-account.
func ValidAccount(s string) bool { return accountRE.MatchString(s) }

// SourceProblem says why a line's recorded source cannot be where it goes
// ("" when it is an SQS queue ARN of the operator's partition and region):
// a bare name, another partition's ARN or anything else is data that names
// no queue mfdlq may resolve for it; another region's queue is one this
// run's client cannot reach.
func SourceProblem(s string, h Home) string {
	a, err := arn.Parse(s)
	switch {
	case err != nil && !strings.Contains(s, ":"):
		return "a bare name, not a queue ARN"
	case err != nil:
		return "not an ARN"
	case a.Service != "sqs":
		return fmt.Sprintf("an ARN of service %q, not an SQS queue", a.Service)
	case a.Partition != h.Partition:
		return fmt.Sprintf("an ARN of partition %q, not this one (%s)", a.Partition, h.Partition)
	case !accountRE.MatchString(a.AccountID) || !regionRE.MatchString(a.Region) || !queueRE.MatchString(a.Resource):
		return "not a queue ARN (account, region or queue name malformed)"
	case a.Region != h.Region:
		// One run sends in one region: those lines wait for a run there.
		return fmt.Sprintf("in region %s, not the region in use (%s): replay the file again with --region %s for them", a.Region, h.Region, a.Region)
	}
	return ""
}

// FileRefused is a recorded source refused before the replay: its lines
// stay in the file, unsent.
type FileRefused struct {
	Source string // as recorded (data: sanitise before showing)
	Lines  int
	Reason string
}

// Line is the plan's line for r.
func (r FileRefused) Line() string {
	return fmt.Sprintf("refused: %s recording source %q (%s): left in the file; replay them with --to QUEUE if you know where they belong",
		plural.Of(r.Lines, "line"), shortSource(r.Source), r.Reason)
}

func shortSource(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// Lines name every destination's account and region, for the plan.
func Lines(dests []*sqsapi.Queue, lines map[string]int) []string {
	out := make([]string, 0, len(dests))
	for _, q := range dests {
		l := fmt.Sprintf("destination: account %s · region %s · queue %s", q.Account, q.Region, q.Name)
		if n, ok := lines[q.ARN]; ok {
			l += fmt.Sprintf(" (%s)", plural.Of(n, "line"))
		}
		out = append(out, l)
	}
	return out
}

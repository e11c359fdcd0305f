package redrive

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws/arn"

	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// Place is where a queue or target lives: its account and region ("" when
// unknown, as a name with no ARN).
type Place struct{ Account, Region string }

// PlaceOf reads the account and region of an ARN; ok is false when s is
// not one.
func PlaceOf(s string) (p Place, ok bool) {
	a, err := arn.Parse(s)
	if err != nil {
		return Place{}, false
	}
	return Place{Account: a.AccountID, Region: a.Region}, true
}

// ProposedOutsideError is a destination that message content proposed in
// another account or region than the DLQ's. Anyone who can send to the
// queue writes a message's TopicArn, functionArn or RULE_ARN: mfdlq never
// lets one choose where messages go outside the DLQ's own account and
// region.
type ProposedOutsideError struct {
	Dest      string
	DestPlace Place
	DLQ       string
	DLQPlace  Place
	// Why is what proposed it ("the TopicArn of 4 messages looked at").
	Why string
}

func (e *ProposedOutsideError) Error() string {
	return fmt.Sprintf("%s's messages propose %s (%s), in account %s, region %s; %s is in account %s, region %s: a message never picks a destination outside the DLQ's account and region; name it yourself with --to if it is right",
		e.DLQ, e.Dest, e.Why, e.DestPlace.Account, e.DestPlace.Region, e.DLQ, e.DLQPlace.Account, e.DLQPlace.Region)
}

// CheckProposed refuses a destination proposed from message content
// (destARN) outside the DLQ's account and region. A destination named by
// name, not ARN, is resolved in the DLQ's own account and region: it
// passes.
func CheckProposed(dlqName string, dlq Place, dest, why string) error {
	p, ok := PlaceOf(dest)
	if !ok {
		return nil
	}
	if p.Account != dlq.Account || p.Region != dlq.Region {
		return &ProposedOutsideError{Dest: dest, DestPlace: p, DLQ: dlqName, DLQPlace: dlq, Why: why}
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

// CrossAccount is the plan's line when its destination is in another
// account than its DLQ (CrossAccount above), "" otherwise; the question
// then names both accounts.
func (p *Plan) CrossAccount() string {
	dlq, dest := p.Source.Queue, p.outside()
	return CrossAccount(dlq.Name, Place{Account: dlq.Account, Region: dlq.Region}, dest.Name, Place{Account: dest.Account, Region: dest.Region})
}

// outside is the first destination in another account than the source's
// (a replay's lines can name several), else the plan's destination.
func (p *Plan) outside() *sqsapi.Queue {
	for _, d := range p.Dests {
		if d.Queue.Account != "" && d.Queue.Account != p.Source.Queue.Account {
			return d.Queue
		}
	}
	return p.Dest().Queue
}

// Question is what the operator is asked before the move: how many, from
// where to where, and both accounts when they differ. The command and any
// other view ask this same question.
func (p *Plan) Question() string {
	dlq, dest := p.Source.Queue, p.outside()
	if p.CrossAccount() != "" {
		return fmt.Sprintf("Move up to %s from %s in account %s to %s in account %s, another account?", plural.Of(p.Bound, "message"), dlq.Name, dlq.Account, dest.Name, dest.Account)
	}
	if p.PerSource {
		return fmt.Sprintf("Move up to %s from %s, each back to its own source queue (%s)?", plural.Of(p.Bound, "message"), dlq.Name, p.destNames())
	}
	return fmt.Sprintf("Move up to %s from %s to %s?", plural.Of(p.Bound, "message"), dlq.Name, dest.Name)
}

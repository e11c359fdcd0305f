package redrive

import (
	"fmt"

	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive/place"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// CrossAccount is the plan's line when its destination is in another
// account than its DLQ (place.CrossAccount), "" otherwise; the question
// then names both accounts.
func (p *Plan) CrossAccount() string {
	dlq, dest := p.Source.Queue, p.outside()
	return place.CrossAccount(dlq.Name, place.Place{Account: dlq.Account, Region: dlq.Region}, dest.Name, place.Place{Account: dest.Account, Region: dest.Region})
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

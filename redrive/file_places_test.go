package redrive

import (
	"errors"
	"strings"
	"testing"

	"github.com/mfdlq/mfdlq/redrive/place"
	"github.com/mfdlq/mfdlq/sqsapi"
)

func TestCheckPlaces(t *testing.T) {
	h := place.Home{Place: place.Place{Account: "123456789012", Region: "us-east-1"}, Partition: "aws"}
	dests := []*sqsapi.Queue{{Name: "a", Account: "123456789012"}, {Name: "b", Account: "999999999999"}, {Name: "c", Account: "888888888888"}}
	err := CheckPlaces("f.jsonl", h, dests, nil)
	var r *Refusal
	if !errors.As(err, &r) || !strings.Contains(r.Reason, "b in account 999999999999, c in account 888888888888, outside your account 123456789012") ||
		!strings.Contains(r.Reason, "--allow-account 999999999999,888888888888") {
		t.Fatalf("CheckPlaces = %v, want a refusal naming both accounts", err)
	}
	if err := CheckPlaces("f.jsonl", h, dests, []string{"888888888888"}); err == nil || strings.Contains(err.Error(), "888888888888 ") {
		t.Errorf("allowing 888888888888: %v, want a refusal of 999999999999 only", err)
	}
	if err := CheckPlaces("f.jsonl", h, dests, []string{"888888888888", "999999999999"}); err != nil {
		t.Errorf("both allowed: %v", err)
	}
}

// The figures say what a stop left where: a canary nothing consumed
// leaves the rest in the DLQ; a canary that came back is in it again; a
// file keeps every line.
func TestOutcomeFigures(t *testing.T) {
	dlq := &sqsapi.Queue{Name: "orders-dlq"}
	for _, tt := range []struct {
		name string
		p    *Plan
		s    *Summary
		left int
		in   string
	}{
		{"canary still", &Plan{Source: Source{Queue: dlq}, Backlog: 12}, &Summary{Moved: 3, Outcome: OutcomeCanaryStill}, 9, LeftInDLQ},
		{"canary back", &Plan{Source: Source{Queue: dlq}, Backlog: 12}, &Summary{Moved: 3, CanaryBack: 3, Outcome: OutcomeCanaryBack}, 12, LeftInDLQ},
		{"keep", &Plan{Source: Source{Queue: dlq}, Backlog: 12, Req: Request{Keep: true}}, &Summary{Moved: 12, Outcome: OutcomeMoved}, 12, LeftInDLQ},
	} {
		var f Figures
		outcomeFigures(&f, tt.p, tt.s)
		if f.Left != tt.left || f.LeftIn != tt.in || f.Outcome != tt.s.Outcome || f.Backlog != tt.p.Backlog {
			t.Errorf("%s: left %d in %q (outcome %q, backlog %d), want %d in %q", tt.name, f.Left, f.LeftIn, f.Outcome, f.Backlog, tt.left, tt.in)
		}
	}
}

package mover

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/mfdlq/mfdlq/redrive/journal"
	"github.com/mfdlq/mfdlq/selection"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// A filter that fails on some messages counts them apart from the ones it
// did not pick, journals the error, keeps the first texts and leaves them
// in the DLQ; the others move.
func TestFilterErrorsAreCountedApart(t *testing.T) {
	s := newSetup(t, 20)
	sel, err := filterFunc(`if .Body.total % 4 == 0 then error("total \(.Body.total) is a multiple of 4") else .Body.total >= 10 end`)
	if err != nil {
		t.Fatal(err)
	}
	st := s.run(t, func(o *Options) { o.Select = sel; o.Workers = 1; o.Attempt = 2 })
	// 0..19: multiples of 4 error (5), the rest >= 10 move (10,11,13,14,15,17,18,19 = 8), 7 skipped.
	if st.FilterErrors != 5 || st.Moved != 8 || st.Skipped != 7 || st.Halted != "" {
		t.Fatalf("stats %+v; want 5 filter errors, 8 moved, 7 skipped, not halted", st)
	}
	if len(st.FilterErrorTexts) == 0 || len(st.FilterErrorTexts) > maxFilterErrorTexts || !strings.Contains(st.FilterErrorTexts[0], "is a multiple of 4") {
		t.Fatalf("error texts %q", st.FilterErrorTexts)
	}
	entries, _ := journal.ReadEntries(s.journal)
	n := 0
	for _, e := range entries {
		if e.Attempt != 2 {
			t.Fatalf("entry %+v: want attempt 2", e)
		}
		if e.Op == journal.OpFilterError {
			n++
			if !strings.Contains(e.Error, "multiple of 4") {
				t.Fatalf("entry %+v has no error text", e)
			}
		}
	}
	if n != 5 {
		t.Fatalf("%d filter_error entries, want 5", n)
	}
	d, _ := s.fake.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{QueueUrl: aws.String(dlqURL)})
	if d.Attributes["ApproximateNumberOfMessages"] != "12" {
		t.Fatalf("DLQ depth %v: the 12 not moved must be visible again at once", d.Attributes)
	}
}

// A filter that fails on every message of the first batch halts the run
// before anything moves.
func TestFilterFailingOnTheFirstBatchMovesNothing(t *testing.T) {
	s := newSetup(t, 30)
	sel, err := filterFunc(`.Body.total.cents > 1`)
	if err != nil {
		t.Fatal(err)
	}
	st := s.run(t, func(o *Options) { o.Select = sel })
	if st.Moved != 0 || !strings.HasPrefix(st.Halted, HaltFilter) || st.FilterErrors == 0 {
		t.Fatalf("stats %+v; want nothing moved, halted by the filter", st)
	}
	if got := len(s.fake.bodies(destURL)); got != 0 {
		t.Fatalf("destination got %d", got)
	}
	if got := len(s.fake.bodies(dlqURL)); got != 30 {
		t.Fatalf("DLQ holds %d, want 30", got)
	}
}

// filterFunc is the mover's Options.Select of a --filter (nil for none:
// every message, as an empty selection compiles).
func filterFunc(filter string) (func(*sqsjson.Message) (bool, error), error) {
	p, err := selection.Selection{Filter: filter}.Compile(nil)
	return p.Func(), err
}

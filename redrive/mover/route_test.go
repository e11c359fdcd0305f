package mover

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mfdlq/mfdlq/redrive/journal"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// sharedFake is a DLQ of three sources in the in-memory fake: each source's
// messages carry its ARN as DeadLetterQueueSourceArn; two carry none.
func sharedFake(t *testing.T) (*setup, map[string]*sqsapi.Queue, map[string][]string) {
	t.Helper()
	s := &setup{fake: newFake(), journal: t.TempDir() + "/redrive-journal.jsonl"}
	queues := map[string]*sqsapi.Queue{}
	want := map[string][]string{}
	for i, name := range []string{"orders", "payments", "refunds"} {
		q := &sqsapi.Queue{Name: name, URL: "https://sqs.local/1/" + name, ARN: "arn:aws:sqs:eu-west-1:1:" + name}
		queues[q.ARN] = q
		for j := range 7 + 3*i {
			body := fmt.Sprintf("%s-%02d", name, j)
			id := s.fake.put(dlqURL, body, nil)
			s.fake.setSys(dlqURL, id, sqsjson.AttrDeadLetterQueueSourceArn, q.ARN)
			want[q.URL] = append(want[q.URL], body)
		}
	}
	for j := range 2 {
		s.fake.put(dlqURL, fmt.Sprintf("direct-%d", j), nil)
	}
	return s, queues, want
}

func TestRouterSendsEachMessageToItsOwnSource(t *testing.T) {
	s, queues, want := sharedFake(t)
	st := s.run(t, func(o *Options) {
		o.Route = &Router{BySource: queues}
		o.Dest = queues["arn:aws:sqs:eu-west-1:1:orders"]
	})
	for _, q := range queues {
		if diff := cmp.Diff(sorted(want[q.URL]), sorted(s.fake.bodies(q.URL))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", q.Name, diff)
		}
		if got := st.Dests[q.URL]; got.Moved != len(want[q.URL]) || got.Failed != 0 {
			t.Errorf("%s figures %+v, want %d moved", q.Name, got, len(want[q.URL]))
		}
	}
	if got := sorted(s.fake.bodies(dlqURL)); !slices.Equal(got, []string{"direct-0", "direct-1"}) {
		t.Errorf("DLQ holds %q, want the two sourceless messages", got)
	}
	if st.Moved != 30 || st.Sourceless != 2 || st.Skipped != 2 || st.OtherSource != 0 {
		t.Errorf("stats %+v", st)
	}
	entries, err := journal.ReadEntries(s.journal)
	if err != nil {
		t.Fatal(err)
	}
	// Each send is journaled with its own destination, and its delete with
	// the same one: the ledger closes every entry.
	sentTo := map[string]string{}
	for _, e := range entries {
		switch e.Op {
		case journal.OpSent:
			sentTo[e.DLQMessageID] = e.DestQueue
		case journal.OpDeleted:
			if sentTo[e.DLQMessageID] != e.DestQueue {
				t.Errorf("delete of %s journaled for %s, sent to %s", e.DLQMessageID, e.DestQueue, sentTo[e.DLQMessageID])
			}
		case journal.OpSkipped:
			if e.Error != staySourceless {
				t.Errorf("skipped entry %+v, want the sourceless reason", e)
			}
		}
	}
	l, err := journal.ReadLedger(s.journal, true)
	if err != nil {
		t.Fatal(err)
	}
	if open := l.Open(); len(open) != 0 {
		t.Errorf("%d entries left open", len(open))
	}
}

func TestRouterNarrowLeavesOtherSources(t *testing.T) {
	s, queues, want := sharedFake(t)
	payments := queues["arn:aws:sqs:eu-west-1:1:payments"]
	st := s.run(t, func(o *Options) {
		o.Dest = payments
		o.Route = &Router{BySource: map[string]*sqsapi.Queue{payments.ARN: payments}, Sourceless: payments}
	})
	got := sorted(s.fake.bodies(payments.URL))
	wantHere := sorted(append(want[payments.URL], "direct-0", "direct-1"))
	if diff := cmp.Diff(wantHere, got); diff != "" {
		t.Errorf("payments (-want +got):\n%s", diff)
	}
	left := s.fake.bodies(dlqURL)
	if len(left) != 7+13 || slices.ContainsFunc(left, func(b string) bool { return strings.HasPrefix(b, "payments") }) {
		t.Errorf("DLQ holds %q, want every orders and refunds message and no payments one", left)
	}
	if st.OtherSource != 20 || st.Moved != 12 {
		t.Errorf("stats %+v", st)
	}
}

func TestCanaryPerDestination(t *testing.T) {
	s, queues, _ := sharedFake(t)
	st := s.run(t, func(o *Options) {
		o.Route = &Router{BySource: queues}
		o.Dest = queues["arn:aws:sqs:eu-west-1:1:orders"]
		o.EachMax, o.Max = 2, 6
	})
	for _, q := range queues {
		if n := len(s.fake.bodies(q.URL)); n != 2 {
			t.Errorf("%s got %d of the canary, want 2", q.Name, n)
		}
	}
	if st.Moved != 6 || len(s.fake.bodies(dlqURL)) != 32-6 {
		t.Errorf("moved %d, DLQ left %d; want 6 and 26", st.Moved, len(s.fake.bodies(dlqURL)))
	}
}

func TestRouterRoute(t *testing.T) {
	q := &sqsapi.Queue{Name: "orders", ARN: "arn:o"}
	r := &Router{BySource: map[string]*sqsapi.Queue{"arn:o": q}}
	for _, tt := range []struct {
		src     string
		want    *sqsapi.Queue
		wantWhy string
	}{{"arn:o", q, ""}, {"", nil, staySourceless}, {"arn:x", nil, stayOther}} {
		m := sqsjson.Message{MessageId: "m", Attributes: map[string]string{sqsjson.AttrDeadLetterQueueSourceArn: tt.src}}
		if got, why := r.Route(&m); got != tt.want || why != tt.wantWhy {
			t.Errorf("source %q: %v %q, want %v %q", tt.src, got, why, tt.want, tt.wantWhy)
		}
	}
}

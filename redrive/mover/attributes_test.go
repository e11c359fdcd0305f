package mover

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/google/go-cmp/cmp"

	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/redrive/journal"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// versionOne is a Transformer that adds "version":1 to each JSON object
// body and records the system attributes each message carried; reads is
// what it answers to ReadsAttributes.
type versionOne struct {
	reads bool
	mu    sync.Mutex
	seen  []map[string]string
}

func (v *versionOne) Apply(_ context.Context, msgs []sqsjson.Message, _ []envelope.Decoded) ([]sqsjson.Message, []Failure) {
	out := make([]sqsjson.Message, len(msgs))
	v.mu.Lock()
	defer v.mu.Unlock()
	for i, m := range msgs {
		v.seen = append(v.seen, m.Attributes)
		m.Body = strings.TrimSuffix(m.Body, "}") + `,"version":1}`
		out[i] = m
	}
	return out, nil
}

func (v *versionOne) Keep([]sqsjson.Message) error { return nil }
func (v *versionOne) Forget([]sqsjson.Message)     {}
func (v *versionOne) ReadsAttributes() bool        { return v.reads }

// groupsSent records the MessageGroupId of every entry sent.
type groupsSent struct {
	*fakeSQS
	mu     sync.Mutex
	groups []string
}

func (g *groupsSent) SendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput, opts ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	g.mu.Lock()
	for _, e := range in.Entries {
		g.groups = append(g.groups, aws.ToString(e.MessageGroupId))
	}
	g.mu.Unlock()
	return g.fakeSQS.SendMessageBatch(ctx, in, opts...)
}

// runThrough runs a mover of s's queues through c (s.fake, or a client
// around it) on s's journal, with mod's options.
func runThrough(t *testing.T, s *setup, c SQS, mod func(*Options)) Stats {
	t.Helper()
	entries, err := journal.ReadEntries(s.journal)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(s.journal, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	jw := journal.NewWriter(f)
	defer jw.Close()
	o := Options{
		Source: &sqsapi.Queue{Name: "orders-dlq", URL: dlqURL}, Dest: &sqsapi.Queue{Name: "orders", URL: destURL},
		Workers: 2, Max: 1000, Backlog: 1000, RunID: "test", Journal: jw, State: stateOf(t, 0, entries...), Wait: 1, Visibility: 30,
	}
	if mod != nil {
		mod(&o)
	}
	m, err := NewMover(c, o)
	if err != nil {
		t.Fatal(err)
	}
	st, err := m.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// The receive asks SQS only for the system attributes the move reads —
// and for each of them: the fake, as SQS, returns only the names asked
// for, so a reader whose attribute is not asked for sees it missing and
// each case below fails.
func TestReceiveAsksForWhatTheMoveReads(t *testing.T) {
	// The send keeps a FIFO message's group (else "mfdlq-redrive"), on
	// every path.
	for name, mod := range map[string]func(*Options){
		"plain":     func(*Options) {},
		"dedupe":    func(o *Options) { o.Dedupe = claims(t) },
		"transform": func(o *Options) { o.Transform = &versionOne{} },
		"both":      func(o *Options) { o.Transform, o.Dedupe = &versionOne{}, claims(t) },
	} {
		t.Run("group/"+name, func(t *testing.T) {
			s := newSetup(t, 3)
			for _, m := range s.fake.queues[dlqURL] {
				s.fake.setSys(dlqURL, m.id, sqsjson.AttrMessageGroupId, "g-"+m.id)
			}
			c := &groupsSent{fakeSQS: s.fake}
			st := runThrough(t, s, c, func(o *Options) { mod(o); o.Dest = &sqsapi.Queue{Name: "orders.fifo", URL: destURL, FIFO: true} })
			if st.Moved != 3 || len(c.groups) != 3 {
				t.Fatalf("moved %d, sent %v", st.Moved, c.groups)
			}
			for _, g := range c.groups {
				if !strings.HasPrefix(g, "g-id-") {
					t.Fatalf("sent in groups %v: each message's own group was lost", c.groups)
				}
			}
		})
	}

	// A transform's send journals the copy's payload hash, and a message
	// with that payload is a return only when it reached the DLQ after the
	// send (its SentTimestamp): one that sat there before is a duplicate.
	t.Run("returns", func(t *testing.T) {
		s := &setup{fake: newFake(), journal: t.TempDir() + "/redrive-journal.jsonl"}
		s.fake.put(dlqURL, `{"order_id":"o-1"}`, nil)
		tr := func(o *Options) { o.Transform = &versionOne{} }
		if st := s.run(t, tr); st.Moved != 1 {
			t.Fatalf("first run %+v", st)
		}
		before := s.fake.put(dlqURL, `{"order_id":"o-1","version":1}`, nil)
		backdate(s.fake, before, time.Hour)
		if st := s.run(t, tr); st.Returned != 0 || st.Moved != 1 {
			t.Fatalf("second run %+v: a copy in the DLQ before the send is no return", st)
		}
		s.fake.put(dlqURL, `{"order_id":"o-1","version":1}`, nil) // came back after the send
		if st := s.run(t, tr); st.Returned != 1 {
			t.Fatalf("third run %+v: want the copy that came back counted returned", st)
		}
	})

	// A shared DLQ's message goes where its DeadLetterQueueSourceArn says.
	t.Run("route", func(t *testing.T) {
		s := newSetup(t, 2)
		for _, m := range s.fake.queues[dlqURL] {
			s.fake.setSys(dlqURL, m.id, sqsjson.AttrDeadLetterQueueSourceArn, "arn:aws:sqs:us-east-1:1:orders")
		}
		st := s.run(t, func(o *Options) {
			o.Transform = &versionOne{}
			o.Route = &Router{BySource: map[string]*sqsapi.Queue{"arn:aws:sqs:us-east-1:1:orders": o.Dest}}
		})
		if st.Moved != 2 {
			t.Fatalf("%+v: the messages stayed, their source not read", st)
		}
	})

	// A program that reads $message sees every system attribute; one that
	// does not is given only what the move reads.
	for _, reads := range []bool{true, false} {
		s := newSetup(t, 1)
		s.fake.setSys(dlqURL, s.fake.queues[dlqURL][0].id, "AWSTraceHeader", "Root=1-5759e988-bd862e3fe1be46a994272793")
		v := &versionOne{reads: reads}
		if st := s.run(t, func(o *Options) { o.Transform = v }); st.Moved != 1 || len(v.seen) != 1 {
			t.Fatalf("%+v, the program saw %v", st, v.seen)
		}
		if _, got := v.seen[0]["AWSTraceHeader"]; got != reads {
			t.Errorf("a program that reads attributes (%v) saw %v", reads, v.seen[0])
		}
	}
}

// The lists themselves: every attribute only where a selection or a
// program may read any, else the few the move reads (each costs SQS and
// the move work on every message).
func TestSystemAttributesOfEachPath(t *testing.T) {
	sel := func(*sqsjson.Message) (bool, error) { return true, nil }
	group, sent, source, all := types.MessageSystemAttributeNameMessageGroupId, types.MessageSystemAttributeNameSentTimestamp,
		types.MessageSystemAttributeNameDeadLetterQueueSourceArn, types.MessageSystemAttributeNameAll
	for _, c := range []struct {
		name string
		o    Options
		want []types.MessageSystemAttributeName
	}{
		// A standard queue's message may carry a fair queue's group.
		{"plain", Options{}, []types.MessageSystemAttributeName{group}},
		{"dedupe", Options{Dedupe: claims(t)}, []types.MessageSystemAttributeName{group}},
		{"transform", Options{Transform: &versionOne{}, Dedupe: claims(t)}, []types.MessageSystemAttributeName{group, sent}},
		{"target", Options{Target: &fakeTarget{}}, []types.MessageSystemAttributeName{group, sent}},
		{"shared DLQ", Options{Route: &Router{}}, []types.MessageSystemAttributeName{group, source}},
		{"program reads them", Options{Transform: &versionOne{reads: true}}, []types.MessageSystemAttributeName{all}},
		{"selection", Options{Select: sel}, []types.MessageSystemAttributeName{all}},
	} {
		if diff := cmp.Diff(c.want, systemAttributes(&c.o)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

package mover

import (
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// TestFIFOSendRefusedHoldsBackItsGroup: on a FIFO DLQ, a message whose
// send is refused (a 4xx) stays in the DLQ, and the later messages of its
// group, received in a later batch, stay with it (counted HeldBack)
// rather than reach the consumer ahead of it; the other group moves
// whole. One worker, so the refusal comes before the second batch.
func TestFIFOSendRefusedHoldsBackItsGroup(t *testing.T) {
	s := newSetup(t, 12) // o-00 … o-11, received ten to a batch
	ids := map[string]string{}
	for _, m := range s.fake.queues[dlqURL] {
		ids[m.body] = m.id
	}
	for i, b := range s.bodies {
		g := "g2"
		if i == 0 || i >= 10 {
			g = "g1" // g1's head is o-00; o-10 and o-11 follow it
		}
		s.fake.setSys(dlqURL, ids[b], "MessageGroupId", g)
	}
	s.fake.sendFault = func(body string) *types.BatchResultErrorEntry {
		if strings.Contains(body, "o-00") {
			return &types.BatchResultErrorEntry{SenderFault: true, Code: aws.String("InvalidParameterValue"), Message: aws.String("bad attribute")}
		}
		return nil
	}
	st := s.run(t, func(o *Options) {
		o.Workers, o.Source.FIFO, o.Dest.FIFO = 1, true, true
	})
	if st.Moved != 9 || st.Failed != 1 || st.HeldBack != 2 {
		t.Fatalf("stats: moved %d, failed %d, held back %d; want 9, 1, 2", st.Moved, st.Failed, st.HeldBack)
	}
	left := s.fake.bodies(dlqURL)
	slices.Sort(left)
	if want := []string{s.bodies[0], s.bodies[10], s.bodies[11]}; !slices.Equal(left, want) {
		t.Fatalf("the DLQ holds %v, want g1's three", left)
	}
}

// TestFIFORefusalInTheSameBatchHoldsBackItsGroup: SendMessageBatch on a
// FIFO queue keeps order within a call, but a refused entry in the middle
// of a call lets the later entries of the same call through — the
// consumer would see o-02 … o-04 before o-01. So a group never has two
// messages in one call: its later messages go in later calls, and none of
// them is sent once one of its messages failed. The other group moves
// whole and in order. A refusal (SenderFault) and a fault retried until
// it is given up on (InternalError) both hold the group back.
func TestFIFORefusalInTheSameBatchHoldsBackItsGroup(t *testing.T) {
	for _, fault := range []types.BatchResultErrorEntry{
		{SenderFault: true, Code: aws.String("InvalidParameterValue"), Message: aws.String("bad attribute")},
		{SenderFault: false, Code: aws.String("InternalError"), Message: aws.String("try again")},
	} {
		t.Run(aws.ToString(fault.Code), func(t *testing.T) {
			s := newSetup(t, 10) // o-00 … o-09, one batch of ten
			ids := map[string]string{}
			for _, m := range s.fake.queues[dlqURL] {
				ids[m.body] = m.id
			}
			for i, b := range s.bodies {
				g := "g1"
				if i%2 == 1 {
					g = "g2" // g2: o-01 o-03 o-05 o-07 o-09; its head o-01 fails
				}
				s.fake.setSys(dlqURL, ids[b], "MessageGroupId", g)
			}
			s.fake.sendFault = func(body string) *types.BatchResultErrorEntry {
				if strings.Contains(body, "o-01") {
					f := fault
					return &f
				}
				return nil
			}
			st := s.run(t, func(o *Options) {
				o.Workers, o.Source.FIFO, o.Dest.FIFO = 1, true, true
				o.Retry, o.Visibility = fastRetry(), 1
			})
			sent := s.fake.bodies(destURL)
			if want := []string{s.bodies[0], s.bodies[2], s.bodies[4], s.bodies[6], s.bodies[8]}; !slices.Equal(sent, want) {
				t.Fatalf("the destination got %v, want g1 whole and in order, nothing of g2", sent)
			}
			if st.Moved != 5 || st.HeldBack != 4 {
				t.Fatalf("stats: moved %d, failed %d, held back %d; want 5 moved, 4 held back", st.Moved, st.Failed, st.HeldBack)
			}
			if left := s.fake.bodies(dlqURL); len(left) != 5 {
				t.Fatalf("the DLQ holds %v, want g2's five", left)
			}
		})
	}
}

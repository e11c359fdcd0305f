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

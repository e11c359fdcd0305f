package mover

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/dedupe"
	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/redrive/journal"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// resends puts orders 0..n-1 in the DLQ, order i copies[i] times (a
// producer's resends), and one message without an order_id.
func resends(t *testing.T, copies []int) *setup {
	s := &setup{fake: newFake(), journal: t.TempDir() + "/redrive-journal.jsonl"}
	attrs := map[string]types.MessageAttributeValue{"ErrorCode": {DataType: aws.String("String"), StringValue: aws.String("E")}}
	for c := 0; c < 4; c++ { // interleaved: the copies of an order are apart
		for i, n := range copies {
			if c < n {
				s.fake.put(dlqURL, fmt.Sprintf(`{"order_id":"o-%d","copy":%d}`, i, c), attrs)
			}
		}
	}
	s.fake.put(dlqURL, `{"copy":0}`, attrs)
	return s
}

func orders(t *testing.T, bodies []string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, b := range bodies {
		var id string
		if _, err := fmt.Sscanf(b, `{"order_id":%q`, &id); err != nil {
			id = "(none)"
		}
		out[id]++
	}
	return out
}

func claims(t *testing.T) *dedupe.Claims {
	k, err := dedupe.Compile(`"cobro:" + .order_id`, func(m *sqsjson.Message) ([]byte, bool) {
		env := envelope.Detect(m)
		return env.Payload, env.PayloadJSON
	})
	if err != nil {
		t.Fatal(err)
	}
	return dedupe.NewClaims(k)
}

// --dedupe moves one message of each order, leaves the resends in the DLQ
// journaled "duplicate" with their key, and moves the keyless one as its
// own; several workers at once never move two of a key.
func TestDedupeMovesTheFirstOfEachKey(t *testing.T) {
	for _, workers := range []int{1, 4} {
		t.Run(fmt.Sprint(workers), func(t *testing.T) {
			s := resends(t, []int{1, 3, 2, 4, 1, 2})
			c := claims(t)
			st := s.run(t, func(o *Options) { o.Dedupe = c; o.Workers = workers })
			got := orders(t, s.fake.bodies(destURL))
			for id, n := range got {
				if n != 1 {
					t.Fatalf("order %s moved %d times: %v", id, n, got)
				}
			}
			if len(got) != 7 || st.Moved != 7 {
				t.Fatalf("moved %v (stats %+v); want the 6 orders and the keyless one", got, st)
			}
			if left := len(s.fake.bodies(dlqURL)); left != 7 {
				t.Fatalf("DLQ holds %d, want the 7 resends", left)
			}
			f := c.Figures()
			if f.Duplicates != 7 || f.NoKey != 1 || len(f.NoKeyReasons) != 1 || len(f.Examples) != 3 {
				t.Fatalf("figures %+v", f)
			}
			entries, _ := journal.ReadEntries(s.journal)
			dups, keyed := 0, 0
			for _, e := range entries {
				switch {
				case e.Op == journal.OpDuplicate && len(e.Key) == 16:
					dups++
				case e.Op == journal.OpSent && len(e.Key) == 16:
					keyed++
				}
			}
			if dups != 7 || keyed != 6 {
				t.Fatalf("journal: %d duplicate entries with a key, %d sends with one; want 7 and 6", dups, keyed)
			}
		})
	}
}

// A run killed after its canary moved some keys is resumed from the
// journal: the second run (a new Claims, as a new process has) moves no
// second message of a key the first moved, and a canary's keys count for
// the rest of the same run.
func TestDedupeResumedRunKnowsTheKeysMoved(t *testing.T) {
	s := resends(t, []int{2, 2, 2, 2, 2, 2, 2, 2})
	first := s.run(t, func(o *Options) { o.Dedupe = claims(t); o.Workers = 1; o.Max = 3 })
	if first.Moved != 3 {
		t.Fatalf("first run moved %d, want 3", first.Moved)
	}
	c := claims(t)
	s.run(t, func(o *Options) { o.Dedupe = c; o.Workers = 2 })
	got := orders(t, s.fake.bodies(destURL))
	ids := make([]string, 0, len(got))
	for id, n := range got {
		if n != 1 {
			t.Fatalf("order %s moved %d times across the two runs: %v", id, n, got)
		}
		ids = append(ids, id)
	}
	sort.Strings(ids)
	if len(ids) != 9 {
		t.Fatalf("moved %v; want the 8 orders once and the keyless one", ids)
	}
	if f := c.Figures(); f.Duplicates != 8 {
		t.Fatalf("second run left %d duplicates, want 8: %+v", f.Duplicates, f)
	}
}

// A message of a key moved in an earlier attempt stays, unless it is the
// very message that came back from that attempt (its MessageId is the
// earlier send's destination MessageId): that one may move again.
func TestDedupeAcrossAttempts(t *testing.T) {
	s := resends(t, []int{2})
	msgs := s.fake.queues[dlqURL]
	back, other := msgs[0].id, msgs[1].id // copy 0 came back from attempt 1; copy 1 is the resend
	k := dedupe.Hex(dedupe.Digest("cobro:o-0"))
	entries := []journal.Entry{{Run: "old", Attempt: 1, Op: journal.OpSent, DLQMessageID: "first", DestQueue: destURL, DestMessageID: back, Key: k},
		{Run: "old", Attempt: 1, Op: journal.OpDeleted, DLQMessageID: "first", DestQueue: destURL}}
	var lines []byte
	for _, e := range entries {
		b, _ := json.Marshal(e)
		lines = append(append(lines, b...), '\n')
	}
	if err := os.WriteFile(s.journal, lines, 0o600); err != nil {
		t.Fatal(err)
	}
	c := claims(t)
	s.run(t, func(o *Options) {
		o.Dedupe = c
		o.Attempt = 2
		o.Workers = 1
		o.State = stateOf(t, 2, entries...)
	})
	left := s.fake.queues[dlqURL]
	if len(left) != 1 || left[0].id != other {
		t.Fatalf("DLQ holds %v, want only the resend %s", left, other)
	}
}

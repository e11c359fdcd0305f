package mover

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/redrive/journal"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// decodedSeen is a Transformer that sends each message as it came and
// records whether the payloads it was handed are its messages' own.
type decodedSeen struct {
	mu      sync.Mutex
	batches int
	wrong   []string
}

func (d *decodedSeen) Apply(_ context.Context, msgs []sqsjson.Message, ds []envelope.Decoded) ([]sqsjson.Message, []Failure) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.batches++
	if len(ds) != len(msgs) {
		d.wrong = append(d.wrong, "a batch without its payloads")
		return msgs, nil
	}
	for i := range msgs {
		want := envelope.Decode(&msgs[i])
		if string(ds[i].Payload) != string(want.Payload) || !cmp.Equal(ds[i].Value, want.Value) {
			d.wrong = append(d.wrong, msgs[i].MessageId)
		}
	}
	return msgs, nil
}

func (d *decodedSeen) Keep([]sqsjson.Message) error { return nil }
func (d *decodedSeen) Forget([]sqsjson.Message)     {}
func (d *decodedSeen) ReadsAttributes() bool        { return false }

// The --key and the transform read each picked message's envelope and
// payload once (decodePicked): the transform is handed each message's
// own, beside the --key that judged it.
func TestKeyAndTransformShareOneRead(t *testing.T) {
	s := resends(t, []int{1, 2, 1})
	tr := &decodedSeen{}
	st := s.run(t, func(o *Options) { o.Transform, o.Dedupe = tr, claims(t) })
	if tr.batches == 0 || len(tr.wrong) > 0 {
		t.Fatalf("%d batches; handed the wrong payloads for %v", tr.batches, tr.wrong)
	}
	if st.Moved != 4 {
		t.Fatalf("moved %d, want the 3 orders and the keyless one", st.Moved)
	}
}

// IsReturn hashes no message that reached the DLQ before the attempt's
// first payload send (FirstPayloadSent), and answers as before for every
// message: by the payload and when it arrived.
func TestIsReturnSkipsTheBacklogsHash(t *testing.T) {
	t0 := time.Unix(1764547200, 0).UTC()
	body := func(id string) string { return `{"order_id":"` + id + `"}` }
	hash := func(b string) string { return envelope.PayloadSHA256(&sqsjson.Message{Body: b}) }
	st := stateOf(t, 1,
		journal.Entry{Time: t0, Run: "r", Op: journal.OpSent, DLQMessageID: "a", DestQueue: destURL, DestMessageID: "d-a", PayloadSHA256: hash(body("o-1"))},
		journal.Entry{Time: t0.Add(time.Minute), Run: "r", Op: journal.OpSent, DLQMessageID: "b", DestQueue: destURL, DestMessageID: "d-b", PayloadSHA256: hash(body("o-2"))},
	)
	for _, c := range []struct {
		order   string
		arrived time.Duration // after t0; 0: no SentTimestamp
		want    bool
	}{
		{"o-1", -time.Hour, false},       // the backlog: a duplicate at most
		{"o-1", -time.Second, true},      // within the skew of the first send
		{"o-1", time.Second, true},       // came back
		{"o-2", 30 * time.Second, false}, // before its own send, after the first
		{"o-2", 2 * time.Minute, true},
		{"o-3", time.Hour, false}, // a payload never sent
		{"o-1", 0, true},          // no SentTimestamp: counted returned
	} {
		m := &sqsjson.Message{MessageId: "n-" + c.order, Body: body(c.order)}
		if c.arrived != 0 {
			m.Attributes = map[string]string{sqsjson.AttrSentTimestamp: strconv.FormatInt(t0.Add(c.arrived).UnixMilli(), 10)}
		}
		at, ok := st.PayloadSent(func() string { return envelope.PayloadSHA256(m) })
		if got, before := IsReturn(st, m), ok && envelope.ArrivedAfter(m, at); got != c.want || got != before {
			t.Errorf("%s arrived %v: IsReturn %v, by its payload alone %v; want %v", c.order, c.arrived, got, before, c.want)
		}
	}
}

// toldSums is a Transformer that knows the payload hash of every other
// message it let go (a marker), as transform.Step knows those it read.
type toldSums struct{ versionOne }

func (t *toldSums) PayloadSHA256(m *sqsjson.Message) (string, bool) {
	if strings.Contains(m.Body, `"o-0`) {
		return "told-" + m.MessageId, true
	}
	return "", false
}

// A send journals the payload hash the transform knows, and reads the
// message for one it does not.
func TestSendJournalsTheTransformsPayloadHash(t *testing.T) {
	s := newSetup(t, 15)
	if st := s.run(t, func(o *Options) { o.Transform = &toldSums{} }); st.Moved != 15 {
		t.Fatalf("moved %d", st.Moved)
	}
	entries, err := journal.ReadEntries(s.journal)
	if err != nil {
		t.Fatal(err)
	}
	told, read := 0, 0
	for _, e := range entries {
		if e.Op != journal.OpSent {
			continue
		}
		switch e.PayloadSHA256 {
		case "told-" + e.DLQMessageID:
			told++
		case envelope.PayloadSHA256(&sqsjson.Message{Body: bodyOf(t, s, e.DLQMessageID)}):
			read++
		default:
			t.Errorf("%s journaled %q", e.DLQMessageID, e.PayloadSHA256)
		}
	}
	if told != 10 || read != 5 {
		t.Fatalf("%d hashes told, %d read; want 10 and 5", told, read)
	}
}

// bodyOf is what the move sent for DLQ message id: its body with
// "version":1 (versionOne).
func bodyOf(t *testing.T, s *setup, id string) string {
	t.Helper()
	var n int
	if _, err := fmt.Sscanf(id, "id-%d", &n); err != nil || n < 1 || n > len(s.bodies) {
		t.Fatalf("no body for %s", id)
	}
	return strings.TrimSuffix(s.bodies[n-1], "}") + `,"version":1}`
}

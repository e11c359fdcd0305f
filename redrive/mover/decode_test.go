package mover

import (
	"context"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mfdlq/mfdlq/envelope"
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

package transform

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mfdlq/mfdlq/sqsjson"
)

// archiveLog is an Archive that records what it kept, in order, and can
// fail.
type archiveLog struct {
	kept []string
	err  error
}

func (a *archiveLog) Append(msgs []sqsjson.Message) error {
	if a.err != nil {
		return a.err
	}
	for _, m := range msgs {
		a.kept = append(a.kept, m.MessageId+"="+m.Body)
	}
	return nil
}

// TestStep: the batch to send holds each repaired copy in its original's
// place (never both), unchanged ones as they came; Keep archives exactly
// the originals of the copies about to go; failures carry their position.
func TestStep(t *testing.T) {
	p := compile(t, `if .n == 3 then error("three") elif .n == 2 then . else .v = 1 end`)
	a := &archiveLog{}
	s := NewStep(p, Limits{}, a)
	batch := []sqsjson.Message{
		{MessageId: "a", ReceiptHandle: "ra", Body: `{"n":1,"v":2}`},
		{MessageId: "b", ReceiptHandle: "rb", Body: `{"n":2,"v":2}`},
		{MessageId: "c", ReceiptHandle: "rc", Body: `{"n":3,"v":2}`},
		{MessageId: "d", ReceiptHandle: "rd", Body: `{"n":4,"v":2}`},
	}
	send, failed := s.Apply(context.Background(), batch, nil)
	var got []string
	for _, m := range send {
		got = append(got, m.MessageId+":"+m.ReceiptHandle+"="+m.Body)
	}
	if strings.Join(got, " ") != `a:ra={"n":1,"v":1} b:rb={"n":2,"v":2} d:rd={"n":4,"v":1}` {
		t.Fatalf("send %v", got)
	}
	if len(failed) != 1 || failed[0].Message.MessageId != "c" || failed[0].Position != 3 || failed[0].Reason != "program error: three" {
		t.Fatalf("failed %+v", failed)
	}
	// --max releases d: only a's original is kept.
	s.Forget(send[2:])
	if err := s.Keep(send[:2]); err != nil {
		t.Fatal(err)
	}
	if strings.Join(a.kept, " ") != `a={"n":1,"v":2}` {
		t.Fatalf("kept %v", a.kept)
	}
	a.kept = nil
	// The next batch counts on.
	if _, failed := s.Apply(context.Background(), []sqsjson.Message{{MessageId: "e", Body: `{"n":3}`}}, nil); failed[0].Position != 5 {
		t.Fatalf("position %d", failed[0].Position)
	}
	// c again (the rest after the canary): failed again, counted once.
	if _, failed := s.Apply(context.Background(), []sqsjson.Message{batch[2]}, nil); len(failed) != 1 || !failed[0].Again {
		t.Fatalf("c must fail again, marked so: %+v", failed)
	}
	// d, released, is counted only when it is sent later.
	if f := s.Figures(); f.Changed != 1 || f.Unchanged != 1 || f.Failed != 2 || len(f.Examples) != 1 {
		t.Fatalf("figures %+v", f)
	}
	send, _ = s.Apply(context.Background(), []sqsjson.Message{batch[3]}, nil)
	if err := s.Keep(send); err != nil || strings.Join(a.kept, " ") != `d={"n":4,"v":2}` {
		t.Fatal(err, a.kept)
	}
	if f := s.Figures(); f.Changed != 2 || f.Unchanged != 1 || f.Failed != 2 || len(f.Examples) != 2 {
		t.Fatalf("figures %+v", f)
	}
	if len(s.pending) != 0 {
		t.Fatalf("%d messages still held", len(s.pending))
	}
	a.err = errors.New("no space left on device")
	send, _ = s.Apply(context.Background(), []sqsjson.Message{{MessageId: "f", Body: `{"n":1}`}}, nil)
	if err := s.Keep(send); !errors.Is(err, ErrArchive) || !strings.Contains(err.Error(), "no space") {
		t.Fatalf("Keep: %v", err)
	}
}

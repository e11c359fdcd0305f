package canary

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/redrive/journal"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// A canary message the destination's consumer failed again is back in the
// DLQ under the MessageId the destination gave it (SQS keeps it on the move
// to the DLQ); any other message there is not the canary's. Against the
// local AWS, through the SDK.
func TestReturnsAfter(t *testing.T) {
	ctx := context.Background()
	cfg := localaws.Config(t)
	seed := localaws.NewSeeder(cfg)
	name := localaws.UniqueName("canary-dlq")
	url, err := seed.CreateQueue(ctx, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := seed.SendIDs(ctx, url, []string{`{"order_id":"o-1"}`, `{"order_id":"o-2"}`}, nil)
	if err != nil {
		t.Fatal(err)
	}
	jw, st, err := journal.Open(filepath.Join(t.TempDir(), "redrive-journal.jsonl"), 0, true)
	if err != nil {
		t.Fatal(err)
	}
	defer jw.Close()
	if err := jw.Write(
		journal.Entry{Op: journal.OpSent, DLQMessageID: "was-1", DestMessageID: ids[0]},
		journal.Entry{Op: journal.OpSent, DLQMessageID: "was-3", DestMessageID: "never-came-back"},
	); err != nil {
		t.Fatal(err)
	}
	isReturn := func(m *sqsjson.Message) bool { return st.IsReturned(m.MessageId) }
	dlq := &sqsapi.Queue{Name: name, URL: url}
	res, err := returnsAfter(ctx, sqsapi.New(cfg), dlq, isReturn, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Moved != 2 || res.Back != 1 || res.BySource[""] != 1 || !res.Failed() {
		t.Fatalf("CheckCanary = %+v, want 1 of 2 back", res)
	}
	if r := res.Reason(name); !strings.Contains(r, "1 of 2 came back to "+name) || !strings.Contains(r, "back to step 2") {
		t.Errorf("reason %q", r)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if res, err := returnsAfter(cancelled, sqsapi.New(cfg), dlq, isReturn, 2, 3600e9); err != nil || res.Failed() {
		t.Errorf("interrupted wait: %+v, %v; want nothing judged", res, err)
	}
}

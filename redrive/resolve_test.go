package redrive

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/selection"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// testEnv is an Env over the local server that keeps the lines it was
// told.
func testEnv(t *testing.T) (*Env, *[]string) {
	t.Helper()
	cfg := localaws.Config(t)
	var lines []string
	say := func(format string, args ...any) { lines = append(lines, format) }
	return &Env{SQS: sqsapi.New(cfg), Region: cfg.Region, Now: time.Now, Info: say, Warn: say}, &lines
}

// pairOf creates a queue named after prefix and its DLQ (maxReceiveCount
// 3) on the local server and resolves the DLQ.
func pairOf(t *testing.T, env *Env, prefix string) (name string, dlq *sqsapi.Queue) {
	t.Helper()
	ctx := context.Background()
	name = localaws.UniqueName(prefix)
	if _, _, err := localaws.NewSeeder(localaws.Config(t)).CreatePair(ctx, name, name+"-dlq", 3); err != nil {
		t.Fatal(err)
	}
	dlq, err := sqsapi.Resolve(ctx, env.SQS, name+"-dlq", env.Region)
	if err != nil {
		t.Fatal(err)
	}
	return name, dlq
}

// Resolve against the local server: the DLQ's one source by default, with
// a canary of at most the backlog and the wait its redrive policy gives;
// a destination that is the DLQ itself, or of the other type, is a usage
// error before anything changes.
func TestResolve(t *testing.T) {
	ctx := context.Background()
	env, _ := testEnv(t)
	s := localaws.NewSeeder(localaws.Config(t))
	name := localaws.UniqueName("plan")
	if _, _, err := s.CreatePair(ctx, name, name+"-dlq", 3); err != nil {
		t.Fatal(err)
	}
	dlqURL, err := s.CreateQueue(ctx, name+"-dlq", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Send(ctx, dlqURL, []string{`{"n":1}`, `{"n":2}`, `{"n":3}`}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateQueue(ctx, name+"-other.fifo", map[string]string{"FifoQueue": "true"}); err != nil {
		t.Fatal(err)
	}
	dlq, err := sqsapi.Resolve(ctx, env.SQS, name+"-dlq", env.Region)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Resolve(ctx, env, Request{Canary: -1, MaxWorkers: 64}, dlq)
	if err != nil {
		t.Fatal(err)
	}
	d := p.Dest()
	// 30 s visibility (the default) × maxReceiveCount 3 + 10 s.
	if d.Queue.Name != name || d.Target != nil || p.Backlog != 3 || p.Bound != 3 || p.Canary != 3 || p.CanaryWait != 100*time.Second || p.DuplicateBound() != 3 {
		t.Fatalf("plan: dest %s, backlog %d, bound %d, canary %d, wait %s, dup bound %d", d.Queue.Name, p.Backlog, p.Bound, p.Canary, p.CanaryWait, p.DuplicateBound())
	}
	if d.Text() != "queue "+name {
		t.Errorf("destination text %q", d.Text())
	}
	if p, err = Resolve(ctx, env, Request{Canary: -1, Selection: selection.Selection{Max: 1}, Native: true, MaxWorkers: 64}, dlq); err != nil || p.Bound != 1 || p.Canary != 0 {
		t.Fatalf("native --max 1: %+v, %v; want bound 1 and no canary", p, err)
	}
	for to, want := range map[string]string{
		name + "-dlq":        "is the DLQ itself",
		name + "-other.fifo": "are not of the same type",
	} {
		_, err := Resolve(ctx, env, Request{To: to, Canary: -1, MaxWorkers: 64}, dlq)
		if KindOf(err) != ErrUsage || !strings.Contains(err.Error(), want) {
			t.Errorf("--to %s: %v, want a usage error saying %q", to, err, want)
		}
	}
}

// A native move of a FIFO DLQ is in doubt when this incident moved to the
// same destination within the 5-minute deduplication window.
func TestFIFODoubt(t *testing.T) {
	now := time.Date(2026, 11, 30, 22, 0, 0, 0, time.UTC)
	dest := &sqsapi.Queue{Name: "orders.fifo", URL: "https://sqs/1/orders.fifo"}
	moved := func(ago time.Duration, url string) incident.Event {
		ev := incident.Event{Step: "redrive", Time: now.Add(-ago)}
		if err := ev.SetFigures(Figures{DestURL: url}); err != nil {
			t.Fatal(err)
		}
		return ev
	}
	for _, tt := range []struct {
		name   string
		fifo   bool
		events []incident.Event
		doubt  bool
	}{
		{"recent move", true, []incident.Event{moved(time.Minute, dest.URL)}, true},
		{"old move", true, []incident.Event{moved(6*time.Minute, dest.URL)}, false},
		{"elsewhere", true, []incident.Event{moved(time.Minute, "https://sqs/1/other.fifo")}, false},
		{"standard", false, []incident.Event{moved(time.Minute, dest.URL)}, false},
		{"the latest move to it counts", true, []incident.Event{moved(6*time.Minute, dest.URL), moved(time.Minute, dest.URL), moved(10*time.Second, "x")}, true},
	} {
		p := &Plan{Source: Source{Queue: &sqsapi.Queue{Name: "orders-dlq.fifo", FIFO: tt.fifo}}, Dests: []Destination{{Queue: dest}}}
		if got := fifoDoubt(tt.events, p, now); (got != "") != tt.doubt {
			t.Errorf("%s: %q, want doubt %v", tt.name, got, tt.doubt)
		}
	}
}

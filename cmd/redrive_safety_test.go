package cmd

import (
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/redrive/journal"

	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mfdlq/mfdlq/incident"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mfdlq/mfdlq/bench/crashkill"
	"github.com/mfdlq/mfdlq/internal/faultproxy"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

// TestSlowRedriveCrash SIGKILLs the real binary at random moments and reruns
// it: nothing lost, duplicates bounded by the sends in flight, and the
// rerun finishes. `make bench` (BENCH=crash) runs the same with 30 kills.
func TestSlowRedriveCrash(t *testing.T) {
	slowOnly(t)
	t.Parallel()
	if testing.Short() {
		t.Skip("kills the binary: not in -short")
	}
	dir := t.TempDir()
	bin := mfdlqBinary(t)
	var log strings.Builder
	res, err := crashkill.Run(context.Background(), localaws.NewSeeder(localaws.Config(t)), crashkill.Config{
		Bin: bin, Runs: 3, Messages: 100, Workers: 2, Visibility: 10, KillAfter: 1500 * time.Millisecond,
		Dir: dir, Log: &log, Seed: uint64(time.Now().UnixNano()),
	})
	t.Log(log.String())
	if err != nil {
		t.Fatal(err)
	}
	if res.Lost != 0 || res.MaxDuplicates > 20 {
		t.Fatalf("%+v", res)
	}
}

// TestRedriveFaults puts the fault-injecting proxy (10% of calls: 5xx,
// throttling, dropped connections, some after the server acted) between
// mfdlq and the server: the move completes and loses nothing.
func TestRedriveFaults(t *testing.T) {
	t.Parallel()
	s := localaws.NewSeeder(localaws.Config(t))
	ctx := context.Background()
	const n = 200
	name, src, dlq, bodies := seedOrders(t, s, "faults", n, map[string]string{"ErrorCode": "E"})
	proxy := faultproxy.New(localaws.Endpoint(t), 0.10, uint64(time.Now().UnixNano()))
	srv := httptest.NewServer(proxy)
	defer srv.Close()
	var stdout, stderr strings.Builder
	d := cmdutil.NewDeps(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}, nil)
	code := run(ctx, d, []string{"redrive", "--queue", name + "-dlq", "--rate", "max", "--canary", "0", "--yes",
		"--visibility", "10", "--endpoint-url", srv.URL, "--incident", t.TempDir()})
	calls, faults := proxy.Counts()
	t.Logf("calls %d, faults %v\n%s%s", calls, faults, stdout.String(), stderr.String())
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	got, err := s.Drain(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	seen := arrivals(got)
	for _, b := range bodies {
		if seen[b] == 0 {
			t.Errorf("lost %s", b)
		}
	}
	if v, f, _ := s.Depth(ctx, dlq); v+f != 0 {
		t.Errorf("DLQ still holds %d visible, %d in flight", v, f)
	}
	t.Logf("%d received for %d sent: %d duplicate(s) from faults after the server acted", len(got), n, len(got)-n)
	if len(faults) == 0 {
		t.Fatal("the proxy injected no fault: the test proved nothing")
	}
}

// A message this journal sent earlier, seen back in the DLQ during a run
// without a canary, counts as returned; below --max-returned it halts
// nothing and is not reported as a failed canary.
func TestRedriveReturnedBelowBreakerIsNotACanaryFailure(t *testing.T) {
	t.Parallel()
	s := localaws.NewSeeder(localaws.Config(t))
	ctx := context.Background()
	name := localaws.UniqueName("back")
	src, dlq, err := s.CreatePair(ctx, name, name+"-dlq", 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Send(ctx, dlq, []string{`{"n":1}`, `{"n":2}`, `{"n":3}`}, nil); err != nil {
		t.Fatal(err)
	}
	// Learn one message's id without keeping it hidden: peek, then let go.
	out, err := s.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(dlq), MaxNumberOfMessages: 1, VisibilityTimeout: 1})
	if err != nil || len(out.Messages) != 1 {
		t.Fatalf("receive: %v", err)
	}
	back := aws.ToString(out.Messages[0].MessageId)
	time.Sleep(1500 * time.Millisecond)
	dir := t.TempDir()
	line, _ := json.Marshal(journal.Entry{Time: time.Now().UTC(), Run: "earlier", Op: journal.OpSent, DLQMessageID: "older-dlq-id", DestQueue: src, DestMessageID: back})
	if err := os.WriteFile(filepath.Join(dir, incident.JournalFile), append(line, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	d := cmdutil.NewDeps(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}, nil)
	code := run(ctx, d, []string{"redrive", "--queue", name + "-dlq", "--rate", "max", "--canary", "0", "--yes",
		"--endpoint-url", localaws.Endpoint(t), "--incident", dir, "--output", "json"})
	t.Logf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	if code != 0 || strings.Contains(stderr.String(), "canary") || !strings.Contains(stdout.String(), `"returned":1`) || !strings.Contains(stdout.String(), `"moved":2`) {
		t.Fatalf("exit %d: want 0, 2 moved, 1 returned, and no canary verdict", code)
	}
}

// TestRedriveFaultsLeavesTheRestVisible is TestRedriveFaults with a
// selection (--filter, --max): a run that exits 0 leaves the DLQ holding
// exactly the messages it left on purpose, every one of them visible at
// once — the faults (some after the server acted: a receive whose answer
// was lost, a release SQS carried out unconfirmed) must not leave any
// hidden.
func TestRedriveFaultsLeavesTheRestVisible(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		flags []string
		moved func(i int) bool
	}{
		{"filter", []string{"--filter", `.Body.order_id | ltrimstr("o-") | tonumber % 2 == 0`}, func(i int) bool { return i%2 == 0 }},
		{"max", []string{"--max", "100"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := localaws.NewSeeder(localaws.Config(t))
			ctx := context.Background()
			const n = 200
			name, src, dlq, bodies := seedOrders(t, s, "faultsleft", n, map[string]string{"ErrorCode": "E"})
			seed := uint64(time.Now().UnixNano())
			proxy := faultproxy.New(localaws.Endpoint(t), 0.10, seed)
			srv := httptest.NewServer(proxy)
			defer srv.Close()
			var stdout, stderr strings.Builder
			d := cmdutil.NewDeps(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}, nil)
			inc := t.TempDir()
			args := append([]string{"redrive", "--queue", name + "-dlq", "--rate", "max", "--canary", "0", "--yes",
				"--visibility", "10", "--endpoint-url", srv.URL, "--incident", inc}, tc.flags...)
			code := run(ctx, d, args)
			calls, faults := proxy.Counts()
			t.Logf("seed %d: calls %d, faults %v\n%s%s", seed, calls, faults, stdout.String(), stderr.String())
			if len(faults) == 0 {
				t.Fatal("the proxy injected no fault: the test proved nothing")
			}
			if code != 0 {
				// A run that fails must still leave what it hid visible.
				if v, f, err := s.Depth(ctx, dlq); err != nil || f != 0 {
					t.Fatalf("exit %d left %d visible, %d in flight (%v)", code, v, f, err)
				}
				t.Logf("exit %d: the faults stopped it, and it left nothing hidden", code)
				return
			}
			if v, f, err := s.Depth(ctx, dlq); err != nil || v != n/2 || f != 0 {
				j, _ := os.ReadFile(filepath.Join(inc, incident.JournalFile))
				t.Fatalf("right after exit 0 the DLQ holds %d visible, %d in flight (%v); want the %d left on purpose, all visible\njournal:\n%s", v, f, err, n/2, j)
			}
			got, err := s.Drain(ctx, src)
			if err != nil {
				t.Fatal(err)
			}
			seen := arrivals(got)
			moved := 0
			for i, b := range bodies {
				if seen[b] > 0 {
					moved++
				}
				if tc.moved != nil && tc.moved(i) != (seen[b] > 0) {
					t.Errorf("%s: moved %v, want %v", b, seen[b] > 0, tc.moved(i))
				}
			}
			if moved != n/2 {
				t.Errorf("%d distinct messages moved, want %d", moved, n/2)
			}
		})
	}
}

package cmd

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/redrive/lease"
)

// sqs-lease QUEUE HOST EXPIRES_IN [WAITING] puts a lease tag on QUEUE as
// another operator's redrive would (operator alice, pid 4242, run r-other)
// expiring EXPIRES_IN from now (negative: expired), waiting on the alarms
// WAITING names (a --when-ok run: "gateway-5xx+1"). ! sqs-lease QUEUE asserts that
// QUEUE has no lease tag, nor any run's claim tag.
func cmdSQSLease(ts *testscript.TestScript, neg bool, args []string) {
	ctx := context.Background()
	s := seeder(ts)
	u, err := s.SQS.GetQueueUrl(ctx, getURL(args[0]))
	ts.Check(err)
	if neg {
		out, err := s.SQS.ListQueueTags(ctx, &sqs.ListQueueTagsInput{QueueUrl: u.QueueUrl})
		ts.Check(err)
		for k, v := range out.Tags {
			if k == lease.Tag || strings.HasPrefix(k, lease.ClaimPrefix) {
				ts.Fatalf("%s still has its lease tag %s: %s", args[0], k, v)
			}
		}
		return
	}
	if len(args) != 3 && len(args) != 4 {
		ts.Fatalf("usage: sqs-lease QUEUE HOST EXPIRES_IN [WAITING]")
	}
	in, err := time.ParseDuration(args[2])
	ts.Check(err)
	now := time.Now().UTC()
	h := lease.Holder{Operator: "alice", Host: args[1], PID: 4242, Run: "r-other", Since: now.Add(-time.Minute), Expires: now.Add(in)}
	if len(args) == 4 {
		h.Waiting = args[3]
	}
	_, err = s.SQS.TagQueue(ctx, &sqs.TagQueueInput{QueueUrl: u.QueueUrl, Tags: map[string]string{lease.Tag: h.String()}})
	ts.Check(err)
}

// TestRedriveTwoOperators starts two redrives of one DLQ at the same
// moment from two incident directories, as two people on two laptops
// would, with the built binary: exactly one runs, the other exits 3 naming
// the holder, and the destination holds every message exactly once.
func TestRedriveTwoOperators(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the binary twice at once: not in -short")
	}
	dir := t.TempDir()
	bin := mfdlqBinary(t)
	s := localaws.NewSeeder(localaws.Config(t))
	ctx := context.Background()
	const n = 30
	name, src, dlq, bodies := seedOrders(t, s, "two", n, nil)
	type result struct {
		code   int
		stderr string
	}
	results := make([]result, 2)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var stderr strings.Builder
			cmd := exec.Command(bin, "redrive", "--queue", name+"-dlq", "--rate", "20", "--canary", "0", "--yes",
				"--incident", filepath.Join(dir, fmt.Sprintf("inc%d", i)), "--endpoint-url", localaws.Endpoint(t))
			cmd.Env = append(os.Environ(), fmt.Sprintf("USER=operator%d", i))
			cmd.Stderr = &stderr
			<-start
			err := cmd.Run()
			results[i] = result{code: cmd.ProcessState.ExitCode(), stderr: stderr.String()}
			if err != nil && cmd.ProcessState == nil {
				t.Error(err)
			}
		}()
	}
	close(start)
	wg.Wait()
	ran, refused := -1, -1
	for i, r := range results {
		t.Logf("run %d: exit %d\n%s", i, r.code, r.stderr)
		switch r.code {
		case 0:
			ran = i
		case 3:
			refused = i
		}
	}
	if ran < 0 || refused < 0 {
		t.Fatalf("exits %d and %d: want one 0 and one 3", results[0].code, results[1].code)
	}
	holder := fmt.Sprintf("operator%d on ", ran)
	if msg := results[refused].stderr; !strings.Contains(msg, holder) || !strings.Contains(msg, "--take-over") || !strings.Contains(msg, " since ") {
		t.Errorf("the refused run does not name the holder (%q) and since when:\n%s", holder, msg)
	}
	got, err := s.Drain(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	seen := arrivals(got)
	for _, b := range bodies {
		if seen[b] != 1 {
			t.Errorf("%s reached the destination %d times, want 1", b, seen[b])
		}
	}
	out, err := s.SQS.ListQueueTags(ctx, &sqs.ListQueueTagsInput{QueueUrl: aws.String(dlq)})
	for k := range out.Tags {
		if k == lease.Tag || strings.HasPrefix(k, lease.ClaimPrefix) {
			t.Errorf("lease tag %s left behind", k)
		}
	}
	if err != nil {
		t.Error(err)
	}
}

// one-incident QUEUE asserts that the per-user incidents directory holds
// exactly one incident directory of QUEUE.
func cmdOneIncident(ts *testscript.TestScript, neg bool, args []string) {
	matches, err := filepath.Glob(filepath.Join(ts.Getenv("XDG_STATE_HOME"), "mfdlq", "incidents", args[0]+"-2*"))
	ts.Check(err)
	if len(matches) != 1 {
		ts.Fatalf("incidents of %s: %v, want exactly one", args[0], matches)
	}
}

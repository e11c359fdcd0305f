package cmd

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	snstypes "github.com/aws/aws-sdk-go-v2/service/sns/types"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/internal/lambdainvoke"
	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive/journal"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// lambdaSetup creates a function in moto and puts the Invoke stand-in in
// front of moto; it returns the stand-in, its URL and the function's ARN.
func lambdaSetup(t *testing.T, name string) (*lambdainvoke.Server, string, string) {
	t.Helper()
	cfg := localaws.Config(t)
	arn, err := localaws.CreateFunction(context.Background(), cfg, name, localaws.HandlerZip("None"))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := lambdainvoke.New(localaws.Endpoint(t), lambda.NewFromConfig(cfg))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return srv, hs.URL, arn
}

// destinationRecord is an on-failure destination record of fn whose
// requestPayload is payload.
func destinationRecord(fn, payload string) string {
	return `{"version":"1.0","timestamp":"2025-03-02T03:00:00.000Z","requestContext":{"requestId":"` + fmt.Sprint(rand.Int()) +
		`","functionArn":"` + fn + `:$LATEST","condition":"RetriesExhausted","approximateInvokeCount":3},"requestPayload":` + payload +
		`,"responseContext":{"statusCode":200,"executedVersion":"$LATEST","functionError":"Unhandled"},"responsePayload":{"errorMessage":"boom","errorType":"Error"}}`
}

// A function's DLQ (body = the event, RequestID/ErrorCode/ErrorMessage
// attributes) and its on-failure records go back to the function with
// InvocationType Event, through throttling and server errors, and nothing
// is lost or invoked twice.
func TestRedriveToLambdaThrottled(t *testing.T) {
	t.Parallel()
	name := localaws.UniqueName("fn")
	srv, url, arn := lambdaSetup(t, name)
	// Each accepted invocation runs, as its logs tell: two of the
	// redriven events raise.
	srv.Logs = cloudwatchlogs.NewFromConfig(localaws.Config(t))
	srv.Fails = func(p []byte) string {
		if strings.Contains(string(p), `"o-7"`) || strings.Contains(string(p), `"o-8"`) {
			return "total must be a number"
		}
		return ""
	}
	srv.Fault = func(n int) int {
		switch {
		case n%4 == 0:
			return 429
		case n%9 == 0:
			return 500
		}
		return 0
	}
	s := localaws.NewSeeder(localaws.Config(t))
	ctx := context.Background()
	dlq, err := s.CreateQueue(ctx, name+"-dlq", nil)
	if err != nil {
		t.Fatal(err)
	}
	const n = 120
	var async, records, want []string
	for i := range n {
		p := fmt.Sprintf(`{"order_id":"o-%d","lines":[1, 2]}`, i)
		want = append(want, p)
		if i%3 == 0 {
			records = append(records, destinationRecord(arn, p))
		} else {
			async = append(async, p)
		}
	}
	if err := s.Send(ctx, dlq, async, map[string]string{"RequestID": "r-1", "ErrorMessage": "boom"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Send(ctx, dlq, records, nil); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	d := cmdutil.NewDeps(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}, nil)
	inc := t.TempDir()
	args := []string{"redrive", "--queue", name + "-dlq", "--to", "lambda:" + name, "--rate", "max", "--canary", "0",
		"--yes", "--endpoint-url", url, "--incident", inc}
	code := run(ctx, d, args)
	t.Logf("%d attempts for %d invocations\n%s", srv.Attempts(), len(srv.Invocations()), stderr.String())
	if code == cmdutil.ExitCheckFailed && strings.Contains(stderr.String(), "could not be moved and stay in the DLQ") {
		// The retry budget ran out on a message: it stayed in the DLQ and
		// the run said so; running the same command again finishes.
		code = run(ctx, d, args)
	}
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "Lambda function "+name+", $LATEST (unqualified), invoked asynchronously") {
		t.Errorf("the plan does not name the version invoked")
	}
	got := map[string]int{}
	for _, inv := range srv.Invocations() {
		got[string(inv.Payload)]++
		if inv.Function != arn {
			t.Errorf("invoked %s, want %s", inv.Function, arn)
		}
	}
	for _, p := range want {
		if got[p] != 1 {
			t.Errorf("payload %s invoked %d times, want once", p, got[p])
		}
	}
	if srv.Attempts() == len(srv.Invocations()) {
		t.Fatal("no fault was injected: the test proved nothing")
	}
	if v, f, _ := s.Depth(ctx, dlq); v+f != 0 {
		t.Errorf("DLQ holds %d", v+f)
	}
	// verify finds the redriven events in the function's logs by their
	// request ids: the two that raised fail it. (The whole function's
	// Errors are not read: its own traffic's are not this fix's.)
	_, err = cloudwatch.NewFromConfig(localaws.Config(t), cwapi.ConfigureCloudWatch).PutMetricData(ctx, &cloudwatch.PutMetricDataInput{
		Namespace: aws.String("AWS/Lambda"), MetricData: []cwtypes.MetricDatum{{MetricName: aws.String("Errors"), Value: aws.Float64(50),
			Dimensions: []cwtypes.Dimension{{Name: aws.String("FunctionName"), Value: aws.String(name)}}, Timestamp: aws.Time(time.Now())}}})
	if err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	code = run(ctx, d, []string{"verify", "--queue", name + "-dlq", "--wait", "0", "--settle", "0", "--endpoint-url", url, "--incident", inc})
	if code != cmdutil.ExitCheckFailed || !strings.Contains(stderr.String(), "2 redriven events of 120 failed in lambda:"+name+" (request id ") ||
		!strings.Contains(stderr.String(), `"[ERROR] RuntimeError: total must be a number`) {
		t.Fatalf("verify: exit %d\n%s", code, stderr.String())
	}
}

// A 900 KiB event (asynchronous Invoke takes 1 MB since 2025; 256 KiB
// before) is repaired by --transform and invoked whole; one over 1 MB is
// refused before the call, and stays in the DLQ.
func TestRedriveToLambda900KiB(t *testing.T) {
	t.Parallel()
	name := localaws.UniqueName("fnbig")
	srv, url, _ := lambdaSetup(t, name)
	s := localaws.NewSeeder(localaws.Config(t))
	ctx := context.Background()
	dlq, err := s.CreateQueue(ctx, name+"-dlq", map[string]string{"MaximumMessageSize": "1048576"})
	if err != nil {
		t.Fatal(err)
	}
	big := fmt.Sprintf(`{"order_id":"o-big","pad":%q}`, strings.Repeat("x", 900<<10))
	over := fmt.Sprintf(`{"order_id":"o-over","pad":%q}`, strings.Repeat("x", 1<<20-40))
	for _, b := range []string{big, over} {
		if err := s.Send(ctx, dlq, []string{b}, map[string]string{"RequestID": "r-1"}); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr strings.Builder
	d := cmdutil.NewDeps(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}, nil)
	code := run(ctx, d, []string{"redrive", "--queue", name + "-dlq", "--to", "lambda:" + name, "--transform", ".version = 1", "--rate", "max",
		"--canary", "0", "--yes", "--endpoint-url", url, "--incident", t.TempDir()})
	t.Logf("exit %d\n%s", code, stderr.String())
	inv := srv.Invocations()
	if len(inv) != 1 || !strings.Contains(string(inv[0].Payload), `"order_id":"o-big"`) || !strings.Contains(string(inv[0].Payload), `"version":1`) || len(inv[0].Payload) < 900<<10 {
		t.Fatalf("%d invocations, want the 900 KiB one repaired", len(inv))
	}
	if v, f, _ := s.Depth(ctx, dlq); v+f != 1 {
		t.Errorf("DLQ holds %d, want the one over 1 MB", v+f)
	}
}

// The DLQ's on-failure records name the function: --to may be omitted, and
// the plan says why.
func TestRedriveLambdaProposedByRecords(t *testing.T) {
	t.Parallel()
	name := localaws.UniqueName("fn")
	_, url, arn := lambdaSetup(t, name)
	s := localaws.NewSeeder(localaws.Config(t))
	ctx := context.Background()
	dlq, _ := s.CreateQueue(ctx, name+"-dlq", nil)
	if err := s.Send(ctx, dlq, []string{destinationRecord(arn, `{"a":1}`), destinationRecord(arn, `{"a":2}`)}, nil); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	d := cmdutil.NewDeps(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}, nil)
	code := run(ctx, d, []string{"redrive", "--queue", name + "-dlq", "--rate", "max", "--dry-run", "--endpoint-url", url, "--incident", t.TempDir()})
	if code != 0 || !strings.Contains(stderr.String(), "destination: lambda:"+arn+", proposed by the on-failure record's functionArn") ||
		!strings.Contains(stderr.String(), "canary of 2 first") {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	// A second origin makes --to required: exit 2 naming both.
	if err := s.Send(ctx, dlq, []string{destinationRecord(arn+"-other", `{"a":3}`)}, nil); err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	time.Sleep(1500 * time.Millisecond) // the first look hid them a second
	code = run(ctx, d, []string{"redrive", "--queue", name + "-dlq", "--rate", "max", "--dry-run", "--endpoint-url", url, "--incident", t.TempDir()})
	if code != cmdutil.ExitUsage || !strings.Contains(stderr.String(), "name 2 origins: pick one with --to lambda:"+arn) {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
}

// SIGKILL in the middle of a redrive to a topic, then the same command
// again: every Message reaches the subscribed queue, and none whose
// publish was journaled before the kill is published twice.
func TestSlowRedriveToSNSCrash(t *testing.T) {
	slowOnly(t)
	t.Parallel()
	if testing.Short() {
		t.Skip("kills the binary: not in -short")
	}
	dir := t.TempDir()
	bin := mfdlqBinary(t)
	cfg := localaws.Config(t)
	s := localaws.NewSeeder(cfg)
	ctx := context.Background()
	name := localaws.UniqueName("crash")
	in, err := subscribedQueue(ctx, cfg, name, name+"-in")
	if err != nil {
		t.Fatal(err)
	}
	const n = 200
	attrs := map[string]snstypes.MessageAttributeValue{"tenant": {DataType: aws.String("String"), StringValue: aws.String("acme")}}
	if err := publishOrders(ctx, sns.NewFromConfig(cfg), topicARN(name), n, attrs); err != nil {
		t.Fatal(err)
	}
	if err := moveBodies(ctx, s, name+"-in", name+"-dlq", n, nil); err != nil {
		t.Fatal(err)
	}
	inc := filepath.Join(dir, "inc")
	args := []string{"redrive", "--queue", name + "-dlq", "--to", "sns:" + name, "--rate", "max", "--canary", "0", "--yes", "--quiet",
		"--visibility", "10", "--max-workers", "4", "--incident", inc}
	first := exec.Command(bin, args...)
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill in the middle: once the first publishes are journaled, after
	// a random moment more.
	journalPath := filepath.Join(inc, "redrive-journal.jsonl")
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, _ := os.ReadFile(journalPath); bytes.Contains(b, []byte(`"op":"sent"`)) {
			break
		}
	}
	time.Sleep(time.Duration(rand.IntN(400)) * time.Millisecond)
	first.Process.Signal(syscall.SIGKILL)
	first.Wait()
	entries, err := journal.ReadEntries(journalPath)
	if err != nil {
		t.Fatal(err)
	}
	journaled := map[string]bool{}
	for _, e := range entries {
		if e.Op == journal.OpSent {
			journaled[e.PayloadSHA256] = true
		}
	}
	if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
		t.Fatalf("rerun: %v\n%s", err, out)
	}
	got, err := drainFor(ctx, s.SQS, in, n, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	counts, err := orderCounts(got, map[string]string{"tenant": "acme"})
	// drainFor ends 2 s after n arrivals, duplicates included: on a loaded
	// machine the last orders can come later. Drain on until every order
	// arrived or nothing more comes for 10 s.
	for err == nil && len(counts) < n {
		more, derr := drainFor(ctx, s.SQS, in, 1, 10*time.Second)
		if derr != nil || len(more) == 0 {
			err = derr
			break
		}
		got = append(got, more...)
		counts, err = orderCounts(got, map[string]string{"tenant": "acme"})
	}
	if err != nil {
		t.Fatal(err)
	}
	dups := 0
	for i := range n {
		id := fmt.Sprintf("o-%d", i)
		c := counts[id]
		if c == 0 {
			t.Errorf("LOST %s", id)
		}
		if c > 1 && journaled[payloadHash(fmt.Sprintf(`{"order_id":"%s"}`, id))] {
			t.Errorf("%s arrived %d times although its publish was journaled before the kill", id, c)
		}
		dups += max(c-1, 0)
	}
	t.Logf("killed with %s journaled; after the rerun %d arrived, %s", plural.Of(len(journaled), "publish"), len(got), plural.Of(dups, "duplicate"))
	if len(journaled) == 0 || len(journaled) == n {
		t.Errorf("the kill came before or after the move, not in its middle")
	}
	// The adaptive controller drives a target's sends as a queue's: a
	// kill leaves at most 10 per batch in flight, --max-workers 4 of them.
	if dups > 10*4 {
		t.Errorf("%d duplicates, more than the 10 per batch in flight (--max-workers 4) a kill can leave", dups)
	}
	if v, f, _ := s.Depth(ctx, mustURL(t, name+"-dlq")); v+f != 0 {
		t.Errorf("DLQ holds %d", v+f)
	}
}

func payloadHash(p string) string {
	return envelope.PayloadSHA256(&sqsjson.Message{Body: p})
}

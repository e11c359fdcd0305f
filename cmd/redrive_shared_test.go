package cmd

import (
	"context"
	"fmt"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/internal/dlqsource"
	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/internal/movetasks"
	"github.com/mfdlq/mfdlq/redrive"
)

// sharedSources are the queues of a shared DLQ in these tests, and how
// many messages each sends into it.
var sharedSources = []struct {
	name string
	n    int
}{{"orders", 3}, {"payments", 4}, {"refunds", 5}}

// shared is a DLQ fed by three source queues through their redrive
// policies, seen through internal/dlqsource so that each message carries
// its DeadLetterQueueSourceArn as in SQS.
type shared struct {
	endpoint string              // the proxy: what mfdlq talks to
	seed     *localaws.Seeder    // through the proxy
	name     string              // prefix: NAME-dlq, NAME-orders …
	dlq      string              // the DLQ's URL
	urls     map[string]string   // source name → URL
	arns     map[string]string   // source name → ARN
	bodies   map[string][]string // source name → the bodies it sent
	close    func()              // stops the proxy
}

// configFor is an SDK configuration for the local AWS at endpoint (a
// script's, which has no testing.T).
func configFor(endpoint string) aws.Config {
	return aws.Config{Region: localaws.Region, BaseEndpoint: aws.String(endpoint),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "test", SecretAccessKey: "test"}, nil
		})}
}

// newShared builds a shared DLQ named name with sourceless messages sent
// straight to it; backend is moto's endpoint.
func newShared(ctx context.Context, backend, name string, sourceless int) (*shared, error) {
	cfg := configFor(backend)
	p, err := dlqsource.New(backend, sqs.NewFromConfig(cfg))
	if err != nil {
		return nil, err
	}
	hs := httptest.NewServer(p)
	via := cfg.Copy()
	via.BaseEndpoint = aws.String(hs.URL)
	s := &shared{endpoint: hs.URL, seed: localaws.NewSeeder(via), name: name, urls: map[string]string{}, arns: map[string]string{}, bodies: map[string][]string{}, close: hs.Close}
	if s.dlq, err = s.seed.CreateQueue(ctx, name+"-dlq", nil); err != nil {
		return s, err
	}
	dlqARN, err := s.seed.Attribute(ctx, s.dlq, "QueueArn")
	if err != nil {
		return s, err
	}
	policy := fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":1}`, dlqARN)
	for _, src := range sharedSources {
		url, err := s.seed.CreateQueue(ctx, name+"-"+src.name, map[string]string{"RedrivePolicy": policy, "VisibilityTimeout": "0"})
		if err != nil {
			return s, err
		}
		s.urls[src.name] = url
		s.arns[src.name], _ = s.seed.Attribute(ctx, url, "QueueArn")
		for j := range src.n {
			s.bodies[src.name] = append(s.bodies[src.name], fmt.Sprintf(`{"from":%q,"n":%d}`, src.name, j))
		}
		if err := s.seed.Send(ctx, url, s.bodies[src.name], nil); err != nil {
			return s, err
		}
		// The first receive counts once; the next ones move them to the DLQ.
		for range 3 {
			if _, err := s.seed.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 10}); err != nil {
				return s, err
			}
		}
		if v, f, _ := s.seed.Depth(ctx, url); v+f != 0 {
			return s, fmt.Errorf("%s still holds %d", src.name, v+f)
		}
	}
	var direct []string
	for j := range sourceless {
		direct = append(direct, fmt.Sprintf(`{"direct":%d}`, j))
	}
	return s, s.seed.Send(ctx, s.dlq, direct, nil)
}

func sharedFor(t *testing.T, sourceless int) *shared {
	t.Helper()
	s, err := newShared(context.Background(), localaws.Endpoint(t), localaws.UniqueName("shr"), sourceless)
	if s != nil {
		t.Cleanup(s.close)
	}
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *shared) redrive(t *testing.T, endpoint, inc string, extra ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr strings.Builder
	d := cmdutil.NewDeps(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}, nil)
	args := append([]string{"redrive", "--queue", s.name + "-dlq", "--rate", "max", "--endpoint-url", endpoint, "--incident", inc}, extra...)
	code := run(context.Background(), d, args)
	return code, stdout.String(), stderr.String()
}

// drained receives and deletes every message of a queue: their bodies,
// sorted.
func (s *shared) drained(t *testing.T, url string) []string {
	t.Helper()
	msgs, err := s.seed.Drain(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range msgs {
		out = append(out, aws.ToString(m.Body))
	}
	sort.Strings(out)
	return out
}

// untouched asserts that a refused redrive changed nothing: every message
// still in the DLQ, no source holding one.
func (s *shared) untouched(t *testing.T, dlqTotal int) {
	t.Helper()
	ctx := context.Background()
	for name, url := range s.urls {
		if v, f, err := s.seed.Depth(ctx, url); err == nil && v+f != 0 {
			t.Errorf("%s holds %d after a refusal", name, v+f)
		}
	}
	if got := len(s.drained(t, s.dlq)); got != dlqTotal {
		t.Errorf("DLQ holds %d after a refusal, want %d", got, dlqTotal)
	}
}

// Without --to each message of a DLQ shared by three queues goes back to
// its own source exactly once and to no other; the ones without a source
// stay, counted; the event's figures give each destination its count.
// The sources have no consumer: the canary per destination is still in
// each after its wait, so the first run stops there (exit 3) naming each
// one; the same command with --canary 0 moves the rest.
func TestRedriveSharedEachToItsOwnSource(t *testing.T) {
	t.Parallel()
	s := sharedFor(t, 2)
	inc := t.TempDir()
	code, _, errOut := s.redrive(t, s.endpoint, inc, "--yes", "--canary", "2", "--canary-wait", "1s", "--output", "json")
	t.Logf("stderr:\n%s", errOut)
	if code != cmdutil.ExitCheckFailed {
		t.Fatalf("exit %d, want %d: nothing consumed the canary", code, cmdutil.ExitCheckFailed)
	}
	for _, src := range sharedSources {
		if want := "the canary's 2 messages are still in " + s.name + "-" + src.name + " after "; !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q", want)
		}
	}
	// The canary's peeks at the DLQ hide what they look at for a second.
	var vis, inFlight int
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if vis, inFlight, _ = s.seed.Depth(context.Background(), s.dlq); vis == 14-6 {
			break
		}
	}
	if vis != 14-6 || inFlight != 0 {
		t.Errorf("DLQ holds %d visible, %d in flight; want the 8 not in the canary, visible", vis, inFlight)
	}
	code, out, errOut := s.redrive(t, s.endpoint, inc, "--yes", "--canary", "0", "--output", "json")
	t.Logf("stderr:\n%s", errOut)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, src := range sharedSources {
		want := slices.Sorted(slices.Values(s.bodies[src.name]))
		if got := s.drained(t, s.urls[src.name]); !slices.Equal(got, want) {
			t.Errorf("%s received %q, want exactly its own %q", src.name, got, want)
		}
	}
	if left := s.drained(t, s.dlq); !slices.Equal(left, []string{`{"direct":0}`, `{"direct":1}`}) {
		t.Errorf("DLQ holds %q, want the two messages without a source", left)
	}
	for _, want := range []string{"2 messages without a DeadLetterQueueSourceArn stayed in the DLQ", "→ " + s.name + "-refunds: 3 moved, 0 failed"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q", want)
		}
	}
	if !strings.Contains(out, `"moved":6`) || !strings.Contains(out, `"skipped":2`) {
		t.Errorf("summary %s", out)
	}
	f := lastRedrive(t, inc)
	if f.Sourceless != 2 || len(f.Destinations) != 3 {
		t.Fatalf("figures %+v", f)
	}
	for i, src := range sharedSources {
		if d := f.Destinations[i]; d.Queue != s.name+"-"+src.name || d.Moved != src.n-2 || d.Failed != 0 {
			t.Errorf("destination %d: %+v, want %s with %d moved after the canary's 2", i, d, src.name, src.n-2)
		}
	}
}

func lastRedrive(t *testing.T, inc string) redrive.Figures {
	t.Helper()
	ws, err := incident.Open(inc)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := ws.Events()
	if err != nil {
		t.Fatal(err)
	}
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Step == "redrive" {
			return redrive.FiguresOf(evs[i])
		}
	}
	t.Fatal("no redrive event")
	return redrive.Figures{}
}

// --to one of the sources, not narrowed, is refused (3) naming the other
// sources and their counts; nothing changes. Narrowed by --filter to the
// queue's own messages, it moves exactly those.
func TestRedriveSharedToOne(t *testing.T) {
	t.Parallel()
	s := sharedFor(t, 0)
	code, _, errOut := s.redrive(t, s.endpoint, t.TempDir(), "--to", s.name+"-orders", "--yes", "--canary", "0")
	if code != cmdutil.ExitCheckFailed {
		t.Fatalf("exit %d, want %d\n%s", code, cmdutil.ExitCheckFailed, errOut)
	}
	for _, want := range []string{"refusing: " + s.name + "-dlq is shared", s.name + "-payments 4", s.name + "-refunds 5", "--force"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	filter := fmt.Sprintf(`.Attributes.DeadLetterQueueSourceArn == %q`, s.arns["orders"])
	code, _, errOut = s.redrive(t, s.endpoint, t.TempDir(), "--to", s.name+"-orders", "--filter", filter, "--yes", "--canary", "0")
	if code != 0 {
		t.Fatalf("narrowed: exit %d\n%s", code, errOut)
	}
	if got, want := s.drained(t, s.urls["orders"]), slices.Sorted(slices.Values(s.bodies["orders"])); !slices.Equal(got, want) {
		t.Errorf("orders received %q, want %q", got, want)
	}
	if left := len(s.drained(t, s.dlq)); left != 9 {
		t.Errorf("DLQ holds %d, want payments' and refunds' 9", left)
	}
}

func TestRedriveSharedToOneRefusedChangesNothing(t *testing.T) {
	t.Parallel()
	s := sharedFor(t, 1)
	code, _, errOut := s.redrive(t, s.endpoint, t.TempDir(), "--to", s.name+"-payments", "--yes")
	if code != cmdutil.ExitCheckFailed || !strings.Contains(errOut, s.name+"-orders 3") {
		t.Fatalf("exit %d, want %d naming orders\n%s", code, cmdutil.ExitCheckFailed, errOut)
	}
	s.untouched(t, 13)
}

// A source queue deleted since its messages reached the DLQ is refused,
// named, exit 5; nothing changes.
func TestRedriveSharedDeletedSource(t *testing.T) {
	t.Parallel()
	s := sharedFor(t, 0)
	ctx := context.Background()
	if _, err := s.seed.SQS.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(s.urls["refunds"])}); err != nil {
		t.Fatal(err)
	}
	delete(s.urls, "refunds")
	code, _, errOut := s.redrive(t, s.endpoint, t.TempDir(), "--yes")
	if code != cmdutil.ExitNotFound || !strings.Contains(errOut, "source queue "+s.name+"-refunds") || !strings.Contains(errOut, "no longer exists") {
		t.Fatalf("exit %d, want %d naming refunds\n%s", code, cmdutil.ExitNotFound, errOut)
	}
	s.untouched(t, 12)
}

// --native without --to starts the move task without a destination: SQS
// (the stand-in) returns each message to its own source.
func TestRedriveSharedNative(t *testing.T) {
	s := sharedFor(t, 0)
	cfg := configFor(s.endpoint)
	srv, err := movetasks.New(s.endpoint, sqs.NewFromConfig(cfg))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	code, _, errOut := s.redrive(t, hs.URL, t.TempDir(), "--native", "--rate", "100", "--yes")
	t.Logf("stderr:\n%s", errOut)
	if code != 0 || !strings.Contains(errOut, "message move task without a destination") {
		t.Fatalf("exit %d", code)
	}
	for _, src := range sharedSources {
		if got, want := s.drained(t, s.urls[src.name]), slices.Sorted(slices.Values(s.bodies[src.name])); !slices.Equal(got, want) {
			t.Errorf("%s received %q, want %q", src.name, got, want)
		}
	}
}

// shared-dlq NAME SOURCELESS makes NAME-dlq, the DLQ of NAME-orders (3
// messages), NAME-payments (4) and NAME-refunds (5), plus SOURCELESS
// messages sent to it directly, and points the script's mfdlq at a
// dlqsource proxy so each carries its DeadLetterQueueSourceArn.
func cmdSharedDLQ(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: shared-dlq NAME SOURCELESS")
	}
	n := 0
	_, err := fmt.Sscan(args[1], &n)
	ts.Check(err)
	s, err := newShared(context.Background(), ts.Getenv("AWS_ENDPOINT_URL"), args[0], n)
	if s != nil {
		ts.Defer(s.close)
	}
	ts.Check(err)
	ts.Setenv("AWS_ENDPOINT_URL", s.endpoint)
}

// An export of a shared DLQ keeps each message's source; --from-file
// without --to replays each line to it, exactly once, none to another.
func TestRedriveSharedFromFile(t *testing.T) {
	t.Parallel()
	s := sharedFor(t, 0)
	file := t.TempDir() + "/shared.jsonl"
	var stdout, stderr strings.Builder
	d := cmdutil.NewDeps(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}, nil)
	if code := run(context.Background(), d, []string{"export", "--queue", s.name + "-dlq", "--out", file, "--delete", "--yes",
		"--endpoint-url", s.endpoint, "--incident", t.TempDir()}); code != 0 {
		t.Fatalf("export: exit %d\n%s", code, stderr.String())
	}
	var out, errOut strings.Builder
	d = cmdutil.NewDeps(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, nil)
	code := run(context.Background(), d, []string{"redrive", "--from-file", file, "--rate", "max", "--yes", "--endpoint-url", s.endpoint, "--incident", t.TempDir()})
	t.Logf("stderr:\n%s", errOut.String())
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, src := range sharedSources {
		if got, want := s.drained(t, s.urls[src.name]), slices.Sorted(slices.Values(s.bodies[src.name])); !slices.Equal(got, want) {
			t.Errorf("%s received %q, want %q", src.name, got, want)
		}
	}
}

package cmd

import (
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/redrive/journal"

	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/internal/movetasks"
	"github.com/mfdlq/mfdlq/redrive"
)

// nativeSetup puts the message-move-task stand-in in front of moto and
// fills a DLQ with n messages.
func nativeSetup(t *testing.T, n int) (srv *movetasks.Server, url, name string, seed *localaws.Seeder, src, dlq string) {
	cfg := localaws.Config(t)
	seed = localaws.NewSeeder(cfg)
	srv, err := movetasks.New(localaws.Endpoint(t), sqs.NewFromConfig(cfg))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	name, src, dlq, _ = seedOrders(t, seed, "native", n, map[string]string{"ErrorCode": "E"})
	redrive.NativePoll = 100 * time.Millisecond
	return srv, hs.URL, name, seed, src, dlq
}

func runNativeCmd(ctx context.Context, url, name, inc string, extra ...string) (int, string, string) {
	var stdout, stderr strings.Builder
	d := cmdutil.NewDeps(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}, nil)
	args := append([]string{"redrive", "--queue", name + "-dlq", "--native", "--yes", "--endpoint-url", url, "--incident", inc}, extra...)
	return run(ctx, d, args), stdout.String(), stderr.String()
}

func TestRedriveNative(t *testing.T) {
	_, url, name, seed, src, dlq := nativeSetup(t, 30)
	inc := t.TempDir()
	code, out, errOut := runNativeCmd(context.Background(), url, name, inc, "--rate", "100", "--output", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if !strings.Contains(out, `"type":"summary"`) || !strings.Contains(out, `"moved":30`) || !strings.Contains(errOut, "message move task COMPLETED") {
		t.Fatalf("stdout %s\nstderr %s", out, errOut)
	}
	ctx := context.Background()
	if v, f, _ := seed.Depth(ctx, dlq); v+f != 0 {
		t.Fatalf("DLQ holds %d", v+f)
	}
	if v, _, _ := seed.Depth(ctx, src); v != 30 {
		t.Fatalf("source holds %d", v)
	}
}

func TestRedriveNativeCtrlC(t *testing.T) {
	_, url, name, seed, src, dlq := nativeSetup(t, 40)
	ctx, cancel := context.WithCancel(context.Background())
	// Ctrl-C once the task has moved something (a fixed delay lands in the
	// lease's second on a loaded machine).
	go func() {
		for ctx.Err() == nil {
			if s, _, _ := seed.Depth(context.Background(), src); s > 0 {
				cancel()
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	code, _, errOut := runNativeCmd(ctx, url, name, t.TempDir(), "--rate", "1")
	cancel()
	if code != cmdutil.ExitInterrupted || !strings.Contains(errOut, "message move task CANCELLED") {
		t.Fatalf("exit %d, want %d\n%s", code, cmdutil.ExitInterrupted, errOut)
	}
	bg := context.Background()
	v, f, _ := seed.Depth(bg, dlq)
	s, _, _ := seed.Depth(bg, src)
	if v+f+s != 40 || s == 0 || v+f == 0 {
		t.Fatalf("after cancel: DLQ %d, source %d; want some moved, the rest left, none lost", v+f, s)
	}
}

func TestRedriveNativeFailed(t *testing.T) {
	srv, url, name, _, _, _ := nativeSetup(t, 20)
	srv.FailAfter = 10
	code, _, errOut := runNativeCmd(context.Background(), url, name, t.TempDir(), "--rate", "100")
	if code != cmdutil.ExitCheckFailed || !strings.Contains(errOut, "message move task FAILED") || !strings.Contains(errOut, "NonExistentQueue") {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
}

// --native on a FIFO DLQ says in the plan that SQS replaced the
// deduplication ids, and when this incident sent to the destination
// within the 5-minute deduplication window it moves with mfdlq's own mover
// (fresh mfdlq-<MessageId> ids) instead of the move task.
func TestNativeFIFOFallsBackWhenInDoubt(t *testing.T) {
	cfg := localaws.Config(t)
	seed := localaws.NewSeeder(cfg)
	ctx := context.Background()
	name := localaws.UniqueName("nfifo")
	fifo := map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "false"}
	dlq, err := seed.CreateQueue(ctx, name+"-dlq.fifo", fifo)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := seed.SQS.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &dlq, MessageBody: aws.String(fmt.Sprintf(`{"n":%d}`, i)),
			MessageGroupId: aws.String("g"), MessageDeduplicationId: aws.String(fmt.Sprint("d", i))}); err != nil {
			t.Fatal(err)
		}
	}
	dest, err := seed.CreateQueue(ctx, name+".fifo", fifo)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ws, _ := incident.Open(dir)
	ev := incident.Event{Step: "redrive", Time: time.Now().UTC().Add(-time.Minute)}
	if err := ev.SetFigures(redrive.Figures{DestURL: dest, DestQueue: name + ".fifo"}); err != nil {
		t.Fatal(err)
	}
	if err := ws.Append(ev); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	d := cmdutil.NewDeps(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}, nil)
	code := run(ctx, d, []string{"redrive", "--queue", name + "-dlq.fifo", "--to", name + ".fifo", "--native", "--rate", "10", "--yes",
		"--endpoint-url", localaws.Endpoint(t), "--incident", dir, "--output", "json"})
	t.Logf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"SQS replaced each message's deduplication id with its original MessageId", "within FIFO's 5-minute deduplication window; moving with mfdlq's own mover"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q", want)
		}
	}
	if !strings.Contains(stdout.String(), `"moved":3`) {
		t.Fatal("the own mover must move all 3")
	}
	entries, _ := journal.ReadEntries(ws.Path(incident.JournalFile))
	if len(entries) == 0 {
		t.Fatal("the own mover journals its sends")
	}
}

package redrive

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/google/go-cmp/cmp"

	"github.com/mfdlq/mfdlq/dedupe"
	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/selection"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/transform"
)

// countingSQS counts what ReceiveMessage brought back.
type countingSQS struct {
	sqsapi.Client
	calls, received atomic.Int64
}

func (c *countingSQS) ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, optFns ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error) {
	out, err := c.Client.ReceiveMessage(ctx, in, optFns...)
	c.calls.Add(1)
	if err == nil {
		c.received.Add(int64(len(out.Messages)))
	}
	return out, err
}

// TestDryRunReadsTheDLQOnce: a dry run with --transform and --dedupe reads
// each message of the DLQ once (it read them twice, a scan per flag), and
// counts the transform and the keys over the same selected messages; every
// message is visible again afterwards. Against moto, through the SDK.
func TestDryRunReadsTheDLQOnce(t *testing.T) {
	ctx := context.Background()
	cfg := localaws.Config(t)
	seed := localaws.NewSeeder(cfg)
	name := localaws.UniqueName("dry")
	_, dlqURL, err := seed.CreatePair(ctx, name, name+"-dlq", 3)
	if err != nil {
		t.Fatal(err)
	}
	var bodies []string
	for _, id := range []int{1, 1, 2, 3, 3, 3, 4} {
		bodies = append(bodies, `{"order_id":`+strconv.Itoa(id)+`,"version":1}`)
	}
	if err := seed.Send(ctx, dlqURL, bodies, nil); err != nil {
		t.Fatal(err)
	}
	c := sqsapi.New(cfg)
	dlq, err := sqsapi.Resolve(ctx, c, dlqURL, localaws.Region)
	if err != nil {
		t.Fatal(err)
	}
	counting := &countingSQS{Client: c}
	p := &Plan{Source: Source{Queue: dlq}, Backlog: len(bodies), Req: Request{
		Selection:        selection.Selection{Filter: ".Body.order_id != 4"},
		TransformProgram: ".version = 2", TransformOrigin: "--transform",
		DedupeKey: `"o:" + (.order_id | tostring)`,
	}}
	if err := p.compileSteps(); err != nil {
		t.Fatal(err)
	}
	if err := p.compileSelection(nil); err != nil {
		t.Fatal(err)
	}
	d, err := ScanDryRun(ctx, &Env{SQS: counting}, p)
	if err != nil {
		t.Fatal(err)
	}
	if got := counting.received.Load(); got != int64(len(bodies)) || d.Read != len(bodies) || d.Interrupted {
		t.Fatalf("received %d messages in %d calls, read %d (interrupted %v); want each of the %d once", got, counting.calls.Load(), d.Read, d.Interrupted, len(bodies))
	}
	if f := d.Transform; f == nil || f.Changed != 6 || f.Unchanged != 0 || f.Failed != 0 {
		t.Fatalf("transform %+v; want the 6 selected changed", d.Transform)
	}
	if s := d.Dedupe; s == nil || s.Messages != 6 || s.Keys != 3 || s.Duplicates != 3 || len(s.Top) == 0 || s.Top[0].Key != "o:3" {
		t.Fatalf("dedupe %+v; want 6 selected, 3 keys, 3 duplicates, o:3 first", d.Dedupe)
	}
	want := []string{
		"the whole selection, 7 messages read and made visible again: 6 changed, 0 unchanged, 0 failed (they would stay in the DLQ)",
		"dedupe: the whole selection, 7 messages read and made visible again: 3 keys, 3 duplicates (they would stay in the DLQ), 0 messages without a key (they would move)",
		`dedupe: "o:3" × 3`, `dedupe: "o:1" × 2`,
	}
	if diff := cmp.Diff(want, d.Lines(p.Backlog)); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	q, err := sqsapi.Resolve(ctx, c, dlqURL, localaws.Region)
	if err != nil || q.Depth.Visible != int64(len(bodies)) {
		t.Fatalf("after the dry run: %+v (%v); want all %d visible", q.Depth, err, len(bodies))
	}
	// Neither flag: nothing to count, nothing read.
	none := &Plan{Source: Source{Queue: dlq}, Backlog: len(bodies)}
	if d, err := ScanDryRun(ctx, &Env{SQS: counting}, none); d != nil || err != nil || counting.received.Load() != int64(len(bodies)) {
		t.Fatalf("a dry run without --transform or --dedupe read the DLQ: %+v %v", d, err)
	}
}

// An interrupted scan never says "the whole selection": its counts are so
// far, and the messages the program had no verdict on are not counted.
func TestDryRunLinesInterrupted(t *testing.T) {
	d := &DryRun{Read: 5, Cut: 1, Interrupted: true, Transform: &transform.Figures{Changed: 4}, Dedupe: &dedupe.Summary{Keys: 2, Duplicates: 3}}
	want := []string{
		"interrupted: scanned 4 of 10 before Ctrl-C, every message read made visible again: 4 changed, 0 unchanged, 0 failed (they would stay in the DLQ) so far",
		"dedupe: interrupted: scanned 5 of 10 before Ctrl-C, every message read made visible again: 2 keys, 3 duplicates (they would stay in the DLQ), 0 messages without a key (they would move) so far",
	}
	if diff := cmp.Diff(want, d.Lines(10)); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
}

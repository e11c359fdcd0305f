// Package moto_test runs transform's programs on what AWS (moto 5.2.1,
// through the real SDK) actually puts in a DLQ and sends the repaired
// copies back through SendMessageBatch, so SQS itself judges each one.
// The move here is the smallest loop that keeps the order redrive keeps —
// original durable, then copy sent, then original deleted — and stands
// for redrive --transform until that is wired (docs/transform.md).
package moto_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	ebtypes "github.com/aws/aws-sdk-go-v2/service/eventbridge/types"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/archive"
	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/internal/demo/consumer"
	"github.com/mfdlq/mfdlq/internal/demo/scenario"
	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/redrive/target"
	"github.com/mfdlq/mfdlq/sqsjson"
	"github.com/mfdlq/mfdlq/transform"
)

func TestMain(m *testing.M) { os.Exit(localaws.Wrap(m).Run()) }

// receive takes up to ten messages with all their attributes, retrying the
// SDK's closed-connection failure of a 200.
func receive(t *testing.T, c *sqs.Client, url string) []sqsjson.Message {
	t.Helper()
	var out *sqs.ReceiveMessageOutput
	var err error
	for range 5 {
		out, err = c.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: &url, MaxNumberOfMessages: 10, WaitTimeSeconds: 1,
			VisibilityTimeout: 60, MessageAttributeNames: []string{"All"}, MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll}})
		if err == nil {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	msgs := make([]sqsjson.Message, len(out.Messages))
	for i, m := range out.Messages {
		msgs[i] = sqsjson.Message{MessageId: aws.ToString(m.MessageId), ReceiptHandle: aws.ToString(m.ReceiptHandle), Body: aws.ToString(m.Body), Attributes: m.Attributes}
		for k, v := range m.MessageAttributes {
			if msgs[i].MessageAttributes == nil {
				msgs[i].MessageAttributes = map[string]sqsjson.MessageAttributeValue{}
			}
			msgs[i].MessageAttributes[k] = sqsjson.MessageAttributeValue{DataType: aws.ToString(v.DataType), StringValue: v.StringValue, BinaryValue: v.BinaryValue}
		}
	}
	return msgs
}

// moved is what one pass over a DLQ did.
type moved struct {
	changed, unchanged, failed int
	reasons                    map[string]string // DLQ MessageId → reason
}

// move repairs every message of dlq into dest through transform.Step, as
// the mover will: each batch's originals are kept (fsynced) before the
// copies go out, a copy's original is deleted only once SQS took the
// copy, a failed one is released at the end of the pass.
func move(t *testing.T, c *sqs.Client, p *transform.Program, dlq, dest string, orig *archive.Originals) moved {
	t.Helper()
	ctx := context.Background()
	res := moved{reasons: map[string]string{}}
	step := transform.NewStep(p, transform.Limits{}, orig)
	seen := map[string]bool{}
	var failed []string // receipt handles, released at the end of the pass
	defer release(t, c, dlq, &failed)
	for empty := 0; empty < 2; {
		msgs := receive(t, c, dlq)
		if len(msgs) == 0 {
			empty++
			continue
		}
		empty = 0
		for _, m := range msgs {
			if seen[m.MessageId] {
				t.Fatalf("%s received twice: a failed one came back within the pass", m.MessageId)
			}
			seen[m.MessageId] = true
		}
		send, bad := step.Apply(ctx, msgs, nil)
		for _, f := range bad {
			res.reasons[f.Message.MessageId] = f.Reason
			failed = append(failed, f.Message.ReceiptHandle)
		}
		if len(send) == 0 {
			continue
		}
		if err := step.Keep(send); err != nil {
			t.Fatal(err)
		}
		entries := make([]types.SendMessageBatchRequestEntry, len(send))
		for i, m := range send {
			entries[i] = types.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), MessageBody: aws.String(m.Body), MessageAttributes: sdkAttributes(m.MessageAttributes)}
		}
		out, err := c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: &dest, Entries: entries})
		if err != nil || len(out.Failed) > 0 {
			t.Fatalf("SQS refused a repaired copy: %v %+v", err, out)
		}
		del := make([]types.DeleteMessageBatchRequestEntry, len(send))
		for i, m := range send {
			del[i] = types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: aws.String(m.ReceiptHandle)}
		}
		if _, err := c.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: &dlq, Entries: del}); err != nil {
			t.Fatal(err)
		}
	}
	f := step.Figures()
	res.changed, res.unchanged, res.failed = f.Changed, f.Unchanged, f.Failed
	return res
}

var _ transform.Archive = (*archive.Originals)(nil)

// release makes the messages the program failed on visible again, as the
// mover does at the end of a run: they stay in the DLQ.
func release(t *testing.T, c *sqs.Client, dlq string, handles *[]string) {
	t.Helper()
	for start := 0; start < len(*handles); start += 10 {
		var e []types.ChangeMessageVisibilityBatchRequestEntry
		for i, h := range (*handles)[start:min(start+10, len(*handles))] {
			e = append(e, types.ChangeMessageVisibilityBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: aws.String(h), VisibilityTimeout: 0})
		}
		if _, err := c.ChangeMessageVisibilityBatch(context.Background(), &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: &dlq, Entries: e}); err != nil {
			t.Fatal(err)
		}
	}
}

func sdkAttributes(a map[string]sqsjson.MessageAttributeValue) map[string]types.MessageAttributeValue {
	if len(a) == 0 {
		return nil
	}
	out := make(map[string]types.MessageAttributeValue, len(a))
	for k, v := range a {
		out[k] = types.MessageAttributeValue{DataType: aws.String(v.DataType), StringValue: v.StringValue, BinaryValue: v.BinaryValue}
	}
	return out
}

// replay sends an originals file's records back into the DLQ, as the undo
// command does.
func replay(t *testing.T, c *sqs.Client, path, dlq, dlqARN string) int {
	t.Helper()
	f, err := archive.Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, err := f.Messages()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	var batch []sqsjson.Message
	flush := func() {
		if len(batch) == 0 {
			return
		}
		var bodies []types.SendMessageBatchRequestEntry
		for i, m := range batch {
			bodies = append(bodies, types.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), MessageBody: aws.String(m.Body), MessageAttributes: sdkAttributes(m.MessageAttributes)})
		}
		if out, err := c.SendMessageBatch(context.Background(), &sqs.SendMessageBatchInput{QueueUrl: &dlq, Entries: bodies}); err != nil || len(out.Failed) > 0 {
			t.Fatalf("replay: %v", err)
		}
		n += len(batch)
		batch = batch[:0]
	}
	for {
		m, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if arn, ok := archive.OriginalOf(m); !ok || arn != dlqARN || m.Attributes[sqsjson.AttrExportedFrom] != "" {
			t.Fatalf("record %s is not marked as an original of %s: %v", m.MessageId, dlqARN, m.Attributes)
		}
		batch = append(batch, *m)
		if len(batch) == 10 {
			flush()
		}
	}
	flush()
	return n
}

func drainBodies(t *testing.T, s *localaws.Seeder, url string) []string {
	t.Helper()
	msgs, err := s.Drain(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = aws.ToString(m.Body)
	}
	sort.Strings(out)
	return out
}

// TestSeedOrdersToVersion1: the seed's 340 version-2 orders, repaired to
// version 1 (and their schema attribute with them), are all taken by SQS
// and all consumed by a consumer that knows only version 1; none is left
// in the DLQ, and the originals put back restore the DLQ exactly.
func TestSeedOrdersToVersion1(t *testing.T) {
	ctx := context.Background()
	cfg := localaws.Config(t)
	s := localaws.NewSeeder(cfg)
	src, dlq, err := s.CreatePair(ctx, localaws.UniqueName("orders"), localaws.UniqueName("orders-dlq"), 4)
	if err != nil {
		t.Fatal(err)
	}
	dlqARN, _ := s.Attribute(ctx, dlq, "QueueArn")
	bodies := scenario.Orders(340, 2, rand.New(rand.NewSource(20261129)))
	if err := s.Send(ctx, dlq, bodies, map[string]string{"schema": "2"}); err != nil {
		t.Fatal(err)
	}
	p, err := transform.Compile(`.version = 1 | set_attributes(.schema.StringValue = "1")`, "--transform")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "transform-originals.jsonl")
	orig, err := archive.OpenOriginals(path, dlqARN, "run-1")
	if err != nil {
		t.Fatal(err)
	}
	res := move(t, s.SQS, p, dlq, src, orig)
	orig.Close()
	if res.changed != 340 || res.failed != 0 || res.unchanged != 0 {
		t.Fatalf("changed %d, unchanged %d, failed %d; want 340 changed", res.changed, res.unchanged, res.failed)
	}
	// The consumer that only knows version 1 takes every one.
	cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	cons := &consumer.Consumer{SQS: s.SQS, QueueURL: src, AcceptMax: 1, Log: io.Discard}
	done := make(chan int)
	go func() { n, _ := cons.Run(cctx); done <- n }()
	for cctx.Err() == nil {
		v, f, _ := s.Depth(ctx, src)
		if v+f == 0 {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	cancel()
	if n := <-done; n != 340 {
		t.Fatalf("the version-1 consumer processed %d of 340", n)
	}
	if v, f, _ := s.Depth(ctx, dlq); v+f != 0 {
		t.Fatalf("DLQ holds %d", v+f)
	}
	// Undo: the originals go back to the DLQ exactly as they were.
	if n := replay(t, s.SQS, path, dlq, dlqARN); n != 340 {
		t.Fatalf("replayed %d originals", n)
	}
	got := drainBodies(t, s, dlq)
	want := slices.Clone(bodies)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Fatalf("the DLQ after the undo differs from the seed (%d vs %d bodies)", len(got), len(want))
	}
}

// TestFailingProgramLeavesExactlyThose: the orders the program fails on
// stay in the DLQ, each with its reason; the rest move repaired.
func TestFailingProgramLeavesExactlyThose(t *testing.T) {
	ctx := context.Background()
	cfg := localaws.Config(t)
	s := localaws.NewSeeder(cfg)
	src, dlq, err := s.CreatePair(ctx, localaws.UniqueName("orders"), localaws.UniqueName("orders-dlq"), 4)
	if err != nil {
		t.Fatal(err)
	}
	bodies := scenario.Orders(60, 2, rand.New(rand.NewSource(7)))
	var wantLeft []string
	for _, b := range bodies {
		var o struct{ Total float64 }
		json.Unmarshal([]byte(b), &o)
		if o.Total > 150 {
			wantLeft = append(wantLeft, b)
		}
	}
	if len(wantLeft) == 0 || len(wantLeft) == len(bodies) {
		t.Fatalf("the seed gives %d of %d over 150: pick another", len(wantLeft), len(bodies))
	}
	if err := s.Send(ctx, dlq, bodies, nil); err != nil {
		t.Fatal(err)
	}
	p, err := transform.Compile(`if .total > 150 then error("total \(.total) needs a manual review") else .version = 1 end`, "--transform")
	if err != nil {
		t.Fatal(err)
	}
	orig, err := archive.OpenOriginals(filepath.Join(t.TempDir(), "o.jsonl"), "arn:dlq", "r")
	if err != nil {
		t.Fatal(err)
	}
	defer orig.Close()
	res := move(t, s.SQS, p, dlq, src, orig)
	if res.failed != len(wantLeft) || res.changed != len(bodies)-len(wantLeft) || orig.Written() != res.changed {
		t.Fatalf("changed %d, failed %d, originals %d; want %d failed", res.changed, res.failed, orig.Written(), len(wantLeft))
	}
	for id, r := range res.reasons {
		if !strings.HasPrefix(r, "program error: total ") || !strings.HasSuffix(r, " needs a manual review") {
			t.Fatalf("%s: reason %q", id, r)
		}
	}
	got := drainBodies(t, s, dlq)
	sort.Strings(wantLeft)
	if !slices.Equal(got, wantLeft) {
		t.Fatalf("DLQ holds %d messages, want exactly the %d failed ones", len(got), len(wantLeft))
	}
	for _, b := range drainBodies(t, s, src) {
		if !strings.Contains(b, `"version":1`) {
			t.Fatalf("an unrepaired copy reached the source: %s", b)
		}
	}
}

// TestSNSEnvelopeRewrappedExactly: notifications moto's SNS delivered to a
// DLQ-shaped queue come out of the repair as the same notifications —
// every member in its place and byte for byte — except the Message, which
// holds the repaired payload, and the signature members the decision
// drops (envelope.SignatureFields).
func TestSNSEnvelopeRewrappedExactly(t *testing.T) {
	ctx := context.Background()
	cfg := localaws.Config(t)
	s := localaws.NewSeeder(cfg)
	dlq, err := s.CreateQueue(ctx, localaws.UniqueName("orders-sns-dlq"), nil)
	if err != nil {
		t.Fatal(err)
	}
	dest, err := s.CreateQueue(ctx, localaws.UniqueName("orders-sns"), nil)
	if err != nil {
		t.Fatal(err)
	}
	dlqARN, _ := s.Attribute(ctx, dlq, "QueueArn")
	topics := sns.NewFromConfig(cfg)
	topic, err := topics.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String(localaws.UniqueName("orders"))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := topics.Subscribe(ctx, &sns.SubscribeInput{TopicArn: topic.TopicArn, Protocol: aws.String("sqs"), Endpoint: &dlqARN}); err != nil {
		t.Fatal(err)
	}
	payloads := scenario.Orders(20, 2, rand.New(rand.NewSource(3)))
	for _, pl := range payloads {
		if _, err := topics.Publish(ctx, &sns.PublishInput{TopicArn: topic.TopicArn, Message: aws.String(pl), Subject: aws.String("order placed")}); err != nil {
			t.Fatal(err)
		}
	}
	// What the DLQ holds, kept to compare with the copies. A Publish whose
	// answer the SDK lost and retried delivers its notification twice
	// (SNS is at least once: seen in make test, "changed 21 of 20"), so
	// the notifications are told apart by their own MessageId, and the
	// DLQ is read until a receive comes back empty.
	before := map[string]string{} // notification MessageId → as delivered
	deadline := time.Now().Add(20 * time.Second)
	var held []sqsjson.Message
	for time.Now().Before(deadline) {
		got := receive(t, s.SQS, dlq)
		held = append(held, got...)
		if len(got) == 0 && len(held) >= len(payloads) {
			break
		}
	}
	if len(held) < len(payloads) || len(held) > len(payloads)+2 {
		t.Fatalf("%d notifications arrived of %d", len(held), len(payloads))
	}
	for _, m := range held {
		e := envelope.Detect(&m)
		if e.Kind != envelope.KindSNS {
			t.Fatalf("moto's notification read as %s", e.Kind)
		}
		before[notificationID(t, m.Body)] = m.Body
	}
	release(t, s.SQS, dlq, handles(held))
	p, err := transform.Compile(`.version = 1`, "--transform")
	if err != nil {
		t.Fatal(err)
	}
	orig, err := archive.OpenOriginals(filepath.Join(t.TempDir(), "o.jsonl"), dlqARN, "r")
	if err != nil {
		t.Fatal(err)
	}
	defer orig.Close()
	if res := move(t, s.SQS, p, dlq, dest, orig); res.changed != len(held) {
		t.Fatalf("changed %d of %d: %v", res.changed, len(held), res.reasons)
	}
	copies := drainBodies(t, s, dest)
	if len(copies) != len(held) {
		t.Fatalf("%d copies arrived of %d", len(copies), len(held))
	}
	for _, body := range copies {
		e := envelope.Detect(&sqsjson.Message{Body: body})
		if e.Kind != envelope.KindSNS {
			t.Fatalf("a copy no longer reads as SNS: %s", body)
		}
		id := orderID(t, e.Payload)
		want := expectedCopy(t, before[notificationID(t, body)])
		if body != want {
			t.Errorf("order %s:\n got %s\nwant %s", id, body, want)
		}
	}
}

// expectedCopy is the notification with its Message's version set to 1
// and its signature members removed, written independently of
// envelope.Rewrap: a line-by-line edit of moto's two-space layout.
func expectedCopy(t *testing.T, body string) string {
	t.Helper()
	var out []string
	lines := strings.Split(body, "\n")
	for _, l := range lines {
		key, _, _ := strings.Cut(strings.TrimSpace(l), ":")
		switch strings.Trim(strings.TrimSpace(key), `"`) {
		case "Signature", "SignatureVersion", "SigningCertURL":
			continue
		case "Message":
			l = strings.Replace(l, `\"version\": 2`, `\"version\": 1`, 1)
			l = strings.Replace(l, `\"version\":2`, `\"version\":1`, 1)
		}
		out = append(out, l)
	}
	// The member that is now last loses its comma.
	for i := len(out) - 1; i >= 0; i-- {
		if strings.HasPrefix(strings.TrimSpace(out[i]), `"`) {
			out[i] = strings.TrimSuffix(out[i], ",")
			break
		}
	}
	return strings.Join(out, "\n")
}

func orderID(t *testing.T, payload []byte) string {
	t.Helper()
	var o struct {
		OrderID string `json:"order_id"`
	}
	if err := json.Unmarshal(payload, &o); err != nil || o.OrderID == "" {
		t.Fatalf("payload %s: %v", payload, err)
	}
	return o.OrderID
}

// notificationID is an SNS notification's own MessageId.
func notificationID(t *testing.T, body string) string {
	t.Helper()
	var n struct{ MessageId string }
	if err := json.Unmarshal([]byte(body), &n); err != nil || n.MessageId == "" {
		t.Fatalf("notification %s: %v", body, err)
	}
	return n.MessageId
}

func handles(msgs []sqsjson.Message) *[]string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.ReceiptHandle
	}
	return &out
}

// TestUndoPassesTheLoopCheck: the loop check that refuses replaying an
// export into the queue it came from accepts an originals file into its
// DLQ — its records carry mfdlq.OriginalOf, not mfdlq.ExportedFrom — and
// still refuses an export of that DLQ.
func TestUndoPassesTheLoopCheck(t *testing.T) {
	const dlqARN = "arn:aws:sqs:us-east-1:123456789012:orders-dlq"
	path := filepath.Join(t.TempDir(), "transform-originals.jsonl")
	orig, err := archive.OpenOriginals(path, dlqARN, "r")
	if err != nil {
		t.Fatal(err)
	}
	// As received from the DLQ, and as an export of it would have them.
	msgs := []sqsjson.Message{{MessageId: "a", Body: "x", Attributes: map[string]string{sqsjson.AttrExportedFrom: dlqARN, "DeadLetterQueueSourceArn": "arn:aws:sqs:us-east-1:123456789012:orders"}}}
	if err := orig.Append(msgs); err != nil {
		t.Fatal(err)
	}
	orig.Close()
	next := func(path string) func() (*sqsjson.Message, error) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		rd, err := sqsjson.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		return rd.Next
	}
	if err := target.FileLoop(next(path), path, "orders-dlq", dlqARN); err != nil {
		t.Fatalf("the undo was refused: %v", err)
	}
	export := filepath.Join(t.TempDir(), "dlq.jsonl")
	os.WriteFile(export, []byte(`{"MessageId":"a","Body":"x","Attributes":{"mfdlq.ExportedFrom":"`+dlqARN+`"}}`+"\n"), 0o600)
	if err := target.FileLoop(next(export), export, "orders-dlq", dlqARN); err == nil {
		t.Fatal("an export replayed into its own DLQ passed the loop check")
	}
}

// TestEventBridgeEnvelopeRewrappedExactly: events moto's EventBridge
// delivered to a queue come out repaired with only their detail changed.
func TestEventBridgeEnvelopeRewrappedExactly(t *testing.T) {
	ctx := context.Background()
	cfg := localaws.Config(t)
	s := localaws.NewSeeder(cfg)
	dlq, err := s.CreateQueue(ctx, localaws.UniqueName("orders-eb-dlq"), nil)
	if err != nil {
		t.Fatal(err)
	}
	dest, err := s.CreateQueue(ctx, localaws.UniqueName("orders-eb"), nil)
	if err != nil {
		t.Fatal(err)
	}
	dlqARN, _ := s.Attribute(ctx, dlq, "QueueArn")
	eb := eventbridge.NewFromConfig(cfg)
	rule, source := localaws.UniqueName("orders-rule"), localaws.UniqueName("com.example.orders")
	pattern, _ := json.Marshal(map[string]any{"source": []string{source}})
	if _, err := eb.PutRule(ctx, &eventbridge.PutRuleInput{Name: &rule, EventPattern: aws.String(string(pattern))}); err != nil {
		t.Fatal(err)
	}
	if _, err := eb.PutTargets(ctx, &eventbridge.PutTargetsInput{Rule: &rule, Targets: []ebtypes.Target{{Id: aws.String("q"), Arn: &dlqARN}}}); err != nil {
		t.Fatal(err)
	}
	details := scenario.Orders(10, 2, rand.New(rand.NewSource(5)))
	for _, d := range details {
		if _, err := eb.PutEvents(ctx, &eventbridge.PutEventsInput{Entries: []ebtypes.PutEventsRequestEntry{{
			Source: &source, DetailType: aws.String("OrderPlaced"), Detail: aws.String(d)}}}); err != nil {
			t.Fatal(err)
		}
	}
	var held []sqsjson.Message
	for deadline := time.Now().Add(20 * time.Second); len(held) < len(details) && time.Now().Before(deadline); {
		held = append(held, receive(t, s.SQS, dlq)...)
	}
	if len(held) != len(details) {
		t.Fatalf("%d events arrived of %d", len(held), len(details))
	}
	before := map[string]string{}
	for _, m := range held {
		e := envelope.Detect(&m)
		if e.Kind != envelope.KindEventBridge {
			t.Fatalf("moto's event read as %s", e.Kind)
		}
		before[orderID(t, e.Payload)] = m.Body
	}
	release(t, s.SQS, dlq, handles(held))
	p, err := transform.Compile(`.version = 1`, "--transform")
	if err != nil {
		t.Fatal(err)
	}
	orig, err := archive.OpenOriginals(filepath.Join(t.TempDir(), "o.jsonl"), dlqARN, "r")
	if err != nil {
		t.Fatal(err)
	}
	defer orig.Close()
	if res := move(t, s.SQS, p, dlq, dest, orig); res.changed != len(details) {
		t.Fatalf("changed %d of %d: %v", res.changed, len(details), res.reasons)
	}
	for _, body := range drainBodies(t, s, dest) {
		e := envelope.Detect(&sqsjson.Message{Body: body})
		id := orderID(t, e.Payload)
		var members map[string]json.RawMessage
		if err := json.Unmarshal([]byte(before[id]), &members); err != nil {
			t.Fatal(err)
		}
		old := string(members["detail"])
		if strings.Count(before[id], old) != 1 {
			t.Fatalf("detail %s is not unique in %s", old, before[id])
		}
		// The repaired detail is compact with its keys sorted (gojq's way;
		// the seed's orders are in key order already); moto spaced it out.
		var compact bytes.Buffer
		if err := json.Compact(&compact, []byte(old)); err != nil {
			t.Fatal(err)
		}
		want := strings.Replace(before[id], old, strings.Replace(compact.String(), `"version":2`, `"version":1`, 1), 1)
		if body != want {
			t.Errorf("order %s:\n got %s\nwant %s", id, body, want)
		}
	}
}

package redrive

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/redrive/journal"
	"github.com/mfdlq/mfdlq/redrive/provenance"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// stampRun moves every message of a DLQ seeded by seed to its source
// queue against the local server, and returns what the source received,
// by body, the journal and the redrive event's figures.
func stampRun(t *testing.T, fifo bool, req Request, seed func(s *localaws.Seeder, dlqURL string)) (map[string]types.Message, []journal.Entry, Figures) {
	t.Helper()
	ctx := context.Background()
	env, _ := testEnv(t)
	env.NewEvent = func(step string, q *sqsapi.Queue) incident.Event { return incident.Event{Step: step, Queue: q.Name} }
	env.OperatorARN = "arn:aws:sts::123456789012:assumed-role/oncall/ana"
	s := localaws.NewSeeder(localaws.Config(t))
	name, attrs := localaws.UniqueName("stamp"), map[string]string(nil)
	if fifo {
		name, attrs = name+".fifo", map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true"}
	}
	dlqName := strings.TrimSuffix(name, ".fifo") + "-dlq" + map[bool]string{true: ".fifo"}[fifo]
	dlqURL, err := s.CreateQueue(ctx, dlqName, attrs)
	if err != nil {
		t.Fatal(err)
	}
	dlqARN, _ := s.Attribute(ctx, dlqURL, "QueueArn")
	// The source takes 256 KiB, the default before 2025 (moto's is 1 MiB).
	srcAttrs := map[string]string{"RedrivePolicy": fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":"3"}`, dlqARN), "MaximumMessageSize": "262144"}
	for k, v := range attrs {
		srcAttrs[k] = v
	}
	srcURL, err := s.CreateQueue(ctx, name, srcAttrs)
	if err != nil {
		t.Fatal(err)
	}
	seed(s, dlqURL)
	dlq, err := sqsapi.Resolve(ctx, env.SQS, dlqName, env.Region)
	if err != nil {
		t.Fatal(err)
	}
	req.Canary, req.MaxWorkers, req.Visibility = 0, 4, 30
	p, err := Resolve(ctx, env, req, dlq)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "orders-dlq-20261202T0400Z")
	ws, err := incident.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Run(ctx, env, ws, p)
	if err != nil || sum.Err != nil {
		t.Fatalf("run: %v, %+v", err, sum)
	}
	got, err := s.Drain(ctx, srcURL)
	if err != nil {
		t.Fatal(err)
	}
	byBody := map[string]types.Message{}
	for _, m := range got {
		byBody[aws.ToString(m.Body)] = m
	}
	entries, err := journal.ReadEntries(ws.Path(incident.JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	ev, ok, err := ws.Latest("redrive")
	if err != nil || !ok {
		t.Fatalf("redrive event: %v, %v", ok, err)
	}
	return byBody, entries, FiguresOf(ev)
}

func stringAttrs(kv ...string) map[string]types.MessageAttributeValue {
	out := map[string]types.MessageAttributeValue{}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = types.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String(kv[i+1])}
	}
	return out
}

func sendWith(t *testing.T, s *localaws.Seeder, url, body string, attrs map[string]types.MessageAttributeValue, fifo bool) string {
	t.Helper()
	in := &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(body), MessageAttributes: attrs}
	if fifo {
		in.MessageGroupId = aws.String("g")
	}
	out, err := s.SQS.SendMessage(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return aws.ToString(out.MessageId)
}

// Every message moved carries this run's stamp, as the destination's
// consumer receives it: an earlier stamp is replaced, not doubled; a
// message with ten attributes already goes without it, unchanged, and is
// counted; the journal's run entry and the event name the operator.
func TestStampOnEveryMessage(t *testing.T) {
	ten := []string{}
	for i := range 10 {
		ten = append(ten, fmt.Sprintf("a%d", i), "v")
	}
	ids := map[string]string{}
	big := strings.Repeat("x", provenance.DefaultMaxBytes-len("ErrorCode")-len("String")-len("E")-40)
	got, entries, fig := stampRun(t, false, Request{}, func(s *localaws.Seeder, dlq string) {
		ids["plain"] = sendWith(t, s, dlq, "plain", stringAttrs("ErrorCode", "E"), false)
		ids["again"] = sendWith(t, s, dlq, "again", stringAttrs(provenance.Attribute, "incident=old run=old msg=x attempt=1", "tenant", "t1"), false)
		ids["full"] = sendWith(t, s, dlq, "full", stringAttrs(ten...), false)
		// 40 bytes short of 256 KiB with its attribute: no room for a stamp.
		sendWith(t, s, dlq, big, stringAttrs("ErrorCode", "E"), false)
	})
	if len(got) != 4 {
		t.Fatalf("destination got %d messages, want 4", len(got))
	}
	if a := got[big].MessageAttributes; len(a) != 1 {
		t.Errorf("a message with no room for the stamp arrived with %d attributes, want its 1", len(a))
	}
	var run string
	for _, e := range entries {
		if e.Op == journal.OpRun {
			run = e.Run
			if e.Operator != "arn:aws:sts::123456789012:assumed-role/oncall/ana" {
				t.Errorf("run entry operator %q", e.Operator)
			}
		}
	}
	if run == "" {
		t.Fatalf("no run entry in the journal: %+v", entries)
	}
	for _, body := range []string{"plain", "again"} {
		m := got[body]
		want := "incident=orders-dlq-20261202T0400Z run=" + run + " msg=" + ids[body] + " attempt=1"
		if a := m.MessageAttributes[provenance.Attribute]; aws.ToString(a.StringValue) != want || aws.ToString(a.DataType) != "String" {
			t.Errorf("%s: %s = %q (%s), want %q", body, provenance.Attribute, aws.ToString(a.StringValue), aws.ToString(a.DataType), want)
		}
	}
	if n := len(got["plain"].MessageAttributes); n != 2 {
		t.Errorf("plain carries %d attributes, want ErrorCode and the stamp", n)
	}
	if n := len(got["again"].MessageAttributes); n != 2 {
		t.Errorf("a message stamped before carries %d attributes, want tenant and one stamp", n)
	}
	full := got["full"].MessageAttributes
	if _, ok := full[provenance.Attribute]; ok || len(full) != 10 {
		t.Errorf("a message with 10 attributes arrived with %d (stamp: %v), want its 10 unchanged", len(full), ok)
	}
	want := provenance.Figures{Operator: "arn:aws:sts::123456789012:assumed-role/oncall/ana", Attribute: provenance.Attribute, Counts: provenance.Counts{Stamped: 2, Full: 1, TooBig: 1}}
	if fig.Provenance == nil || *fig.Provenance != want {
		t.Errorf("event provenance %+v, want %+v", fig.Provenance, want)
	}
}

// --no-stamp sends the attributes as they were; the operator is still
// recorded.
func TestNoStamp(t *testing.T) {
	got, _, fig := stampRun(t, false, Request{NoStamp: true}, func(s *localaws.Seeder, dlq string) {
		sendWith(t, s, dlq, "plain", stringAttrs("ErrorCode", "E"), false)
	})
	if a := got["plain"].MessageAttributes; len(a) != 1 || aws.ToString(a["ErrorCode"].StringValue) != "E" {
		t.Errorf("--no-stamp: attributes %v, want ErrorCode alone", a)
	}
	if f := fig.Provenance; f == nil || f.Attribute != "" || f.Off != "off (--no-stamp)" || f.Operator == "" || f.Stamped != 0 {
		t.Errorf("event provenance %+v", f)
	}
}

// On a FIFO queue with content-based deduplication the stamp changes
// nothing of the deduplication: SQS hashes the body only, and mfdlq sends
// its own id (mfdlq-<DLQ MessageId>) anyway; group and order are kept.
func TestStampFIFO(t *testing.T) {
	ids := map[string]string{}
	got, _, _ := stampRun(t, true, Request{}, func(s *localaws.Seeder, dlq string) {
		ids["a"] = sendWith(t, s, dlq, "a", nil, true)
		ids["b"] = sendWith(t, s, dlq, "b", nil, true)
	})
	for _, body := range []string{"a", "b"} {
		m := got[body]
		if m.Attributes["MessageDeduplicationId"] != "mfdlq-"+ids[body] || m.Attributes["MessageGroupId"] != "g" {
			t.Errorf("%s: dedup id %q group %q", body, m.Attributes["MessageDeduplicationId"], m.Attributes["MessageGroupId"])
		}
		if v := aws.ToString(m.MessageAttributes[provenance.Attribute].StringValue); !strings.Contains(v, "msg="+ids[body]) {
			t.Errorf("%s: stamp %q", body, v)
		}
	}
}

package cmd

import (
	"github.com/mfdlq/mfdlq/redrive/journal"

	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/internal/livequeue"
	"github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/sqsjson"
	"github.com/mfdlq/mfdlq/verify"
)

// dests-verdict stdout QUEUE VERDICT RETURNED asserts that verify's JSON
// output judged destination QUEUE with VERDICT and counted RETURNED
// messages back from it, and that every message it names as returned from
// QUEUE is counted there.
func cmdDestsVerdict(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 4 || args[0] != "stdout" {
		ts.Fatalf("usage: dests-verdict stdout QUEUE VERDICT RETURNED")
	}
	var out verify.Result
	ts.Check(json.Unmarshal([]byte(ts.ReadFile("stdout")), &out))
	want, err := strconv.Atoi(args[3])
	ts.Check(err)
	back := 0
	for _, r := range out.Returned {
		if strings.HasSuffix(r.DestQueue, "/"+args[1]) {
			back++
		}
	}
	for _, d := range out.Destinations {
		if d.Queue != args[1] {
			continue
		}
		if string(d.Verdict) != args[2] || d.Returned != want || back != want {
			ts.Fatalf("%s: verdict %s, %d returned (%d named in returned); want %s, %d", d.Queue, d.Verdict, d.Returned, back, args[2], want)
		}
		return
	}
	ts.Fatalf("no destination %s in %d destinations", args[1], len(out.Destinations))
}

// live-pair SOURCE DLQ good|bad RATE SEED makes SOURCE a live production
// queue and DLQ its dead-letter queue holding SEED failed orders:
// SOURCE (visibility 1 s, maxReceiveCount 3) gets a producer at RATE msg/s
// and two consumers, and CloudWatch gets the AWS/SQS metrics SQS would
// publish — 20 minutes of steady history before now (Backfill, and the
// running minute up to now), then the harness's own, until the script
// ends. The consumers delete their own producer's messages; a message
// whose body holds "new-failure" they always fail (a live incident's new
// failures); good deletes everybody else's (a redrive's), bad fails them
// back into DLQ through the redrive policy (a fix that did not hold).
// maxReceiveCount is 3 because SQS, and the harness, leave messages
// received three times or more out of ApproximateAgeOfOldestMessage.
func cmdLivePair(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 5 || (args[2] != "good" && args[2] != "bad") {
		ts.Fatalf("usage: live-pair SOURCE DLQ good|bad RATE SEED")
	}
	rate, err := strconv.ParseFloat(args[3], 64)
	ts.Check(err)
	seed, err := strconv.Atoi(args[4])
	ts.Check(err)
	ctx := context.Background()
	s := seeder(ts)
	dlqURL, err := s.CreateQueue(ctx, args[1], nil)
	ts.Check(err)
	dlqARN, err := s.Attribute(ctx, dlqURL, "QueueArn")
	ts.Check(err)
	srcURL, err := s.CreateQueue(ctx, args[0], map[string]string{"VisibilityTimeout": "1",
		"RedrivePolicy": fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":3}`, dlqARN)})
	ts.Check(err)
	var bodies []string
	for i := range seed {
		bodies = append(bodies, fmt.Sprintf(`{"order_id":"o-%d","version":2}`, i))
	}
	ts.Check(s.Send(ctx, dlqURL, bodies, nil))

	cfg := scriptConfig(ts)
	good := args[2] == "good"
	l, err := livequeue.Start(ctx, cfg, livequeue.Config{QueueURL: srcURL, Rate: rate, Consumers: 2, Handle: func(m types.Message) bool {
		body := aws.ToString(m.Body)
		switch {
		case strings.Contains(body, "new-failure"):
			return false
		case strings.Contains(body, `"live-`):
			return true
		}
		return good
	}})
	ts.Check(err)
	// The history before the producer's first send, up to that moment:
	// whole minutes, and the running minute's part, so that the minute
	// reads as steady as the ones before it however long this took.
	now := l.Started().UTC()
	perMinute := rate * 60
	steady := livequeue.Minute{Sent: perMinute, Received: perMinute, Deleted: perMinute, AgeOfOldest: 1}
	ts.Check(livequeue.Backfill(ctx, cfg, args[0], now.Add(-20*time.Minute), now.Truncate(time.Minute), steady))
	part := rate * now.Sub(now.Truncate(time.Minute)).Seconds()
	ts.Check(livequeue.Put(ctx, cloudwatch.NewFromConfig(cfg, cwapi.ConfigureCloudWatch), args[0], now.Truncate(time.Minute),
		livequeue.Minute{Sent: part, Received: part, Deleted: part, AgeOfOldest: 1}))
	ts.Defer(func() { l.Stop() })
}

// journal-move-dests DLQ INCIDENT DEST... moves DLQ's messages to the
// DESTs in turn with the plain SDK and writes what a redrive to several
// destinations records: sent and deleted entries whose dest_queue is each
// destination's URL, and an event whose figures list each destination
// (redrive.Figures.Destinations), as a shared DLQ's move back to each
// message's own source does.
func cmdJournalMoveDests(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 4 {
		ts.Fatalf("usage: journal-move-dests DLQ INCIDENT DEST DEST...")
	}
	ctx := context.Background()
	s := seeder(ts)
	dlqURL, err := s.SQS.GetQueueUrl(ctx, getURL(args[0]))
	ts.Check(err)
	var dests []redrive.DestFigures
	for _, name := range args[2:] {
		u, err := s.SQS.GetQueueUrl(ctx, getURL(name))
		ts.Check(err)
		dests = append(dests, redrive.DestFigures{Queue: name, URL: aws.ToString(u.QueueUrl)})
	}
	ws, err := incident.Open(ts.MkAbs(args[1]))
	ts.Check(err)
	started := time.Now().UTC()
	msgs, err := s.Drain(ctx, aws.ToString(dlqURL.QueueUrl))
	ts.Check(err)
	f, err := ws.OpenAppend(incident.JournalFile)
	ts.Check(err)
	enc := json.NewEncoder(f)
	for i, m := range msgs {
		d := &dests[i%len(dests)]
		out, err := s.SQS.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(d.URL), MessageBody: m.Body})
		ts.Check(err)
		d.Moved++
		ts.Check(enc.Encode(journal.Entry{Time: time.Now().UTC(), Run: "r1", Op: journal.OpSent, DLQMessageID: aws.ToString(m.MessageId),
			BodySHA256: sqsjson.BodySHA256(aws.ToString(m.Body)), DestQueue: d.URL, DestMessageID: aws.ToString(out.MessageId)}))
		ts.Check(enc.Encode(journal.Entry{Time: time.Now().UTC(), Run: "r1", Op: journal.OpDeleted, DLQMessageID: aws.ToString(m.MessageId), DestQueue: d.URL}))
	}
	ts.Check(f.Close())
	ev := incident.Event{Step: "redrive", Queue: args[0]}
	ts.Check(ev.SetFigures(redrive.Figures{Moved: len(msgs), StartedAt: started.Truncate(time.Second), Destinations: dests}))
	ts.Check(ws.Append(ev))
}

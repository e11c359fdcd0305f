package cmd

import (
	"github.com/mfdlq/mfdlq/redrive/journal"

	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/sqsjson"
	"github.com/mfdlq/mfdlq/verify"
)

// journal-move DLQ DEST INCIDENT [native] moves every message of DLQ to
// DEST with the plain SDK and writes what a redrive records: the journal's
// sent and deleted entries and a redrive event. With native, the journal
// keeps body hashes only, as after a native move task.
func cmdJournalMove(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 3 {
		ts.Fatalf("usage: journal-move DLQ DEST INCIDENT [native]")
	}
	native := len(args) > 3 && args[3] == "native"
	ctx := context.Background()
	s := seeder(ts)
	dlqURL, err := s.SQS.GetQueueUrl(ctx, getURL(args[0]))
	ts.Check(err)
	destURL, err := s.SQS.GetQueueUrl(ctx, getURL(args[1]))
	ts.Check(err)
	ws, err := incident.Open(ts.MkAbs(args[2]))
	ts.Check(err)
	started := time.Now().UTC()
	msgs, err := s.Drain(ctx, *dlqURL.QueueUrl)
	ts.Check(err)
	var lines []journal.Entry
	for i, m := range msgs {
		out, err := s.SQS.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: destURL.QueueUrl, MessageBody: m.Body})
		ts.Check(err)
		e := journal.Entry{Time: time.Now().UTC(), Run: "r1", Op: journal.OpSent, DLQMessageID: aws.ToString(m.MessageId),
			BodySHA256: sqsjson.BodySHA256(aws.ToString(m.Body)), DestQueue: args[1], DestMessageID: aws.ToString(out.MessageId)}
		if native {
			e.DestMessageID, e.DLQMessageID = "", "native-"+strconv.Itoa(i)
		}
		lines = append(lines, e, journal.Entry{Time: time.Now().UTC(), Run: "r1", Op: journal.OpDeleted, DLQMessageID: e.DLQMessageID})
	}
	f, err := ws.OpenAppend(incident.JournalFile)
	ts.Check(err)
	enc := json.NewEncoder(f)
	for _, e := range lines {
		ts.Check(enc.Encode(e))
	}
	ts.Check(f.Close())
	ev := incident.Event{Step: "redrive", Queue: args[0]}
	ts.Check(ev.SetFigures(redrive.Figures{Moved: len(msgs), DestQueue: args[1], DestURL: aws.ToString(destURL.QueueUrl),
		StartedAt: started.Truncate(time.Second), Native: native}))
	ts.Check(ws.Append(ev))
}

// consume-later QUEUE delete|fail DELAY starts, after DELAY, a consumer of
// QUEUE in the background: delete receives and deletes every message; fail
// receives them and lets each one's visibility lapse (a second), again and
// again, until the redrive policy moves them all to the DLQ.
func cmdConsumeLater(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: consume-later QUEUE delete|fail DELAY")
	}
	delay, err := time.ParseDuration(args[2])
	ts.Check(err)
	s := seeder(ts)
	u, err := s.SQS.GetQueueUrl(context.Background(), getURL(args[0]))
	ts.Check(err)
	url, mode := aws.ToString(u.QueueUrl), args[1]
	go func() {
		time.Sleep(delay)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if mode == "delete" {
			s.Drain(ctx, url)
			return
		}
		for range 40 {
			out, err := s.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
				QueueUrl: aws.String(url), MaxNumberOfMessages: 10, VisibilityTimeout: 1, WaitTimeSeconds: 1,
				MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll},
			})
			if err != nil || (len(out.Messages) == 0 && empty(ctx, s, url)) {
				return
			}
			// The SDK omits a zero VisibilityTimeout, so each receive hides
			// the batch for a second and the next one comes after it lapses.
			time.Sleep(1100 * time.Millisecond)
		}
	}()
}

func empty(ctx context.Context, s *localaws.Seeder, url string) bool {
	v, f, err := s.Depth(ctx, url)
	return err != nil || v+f == 0
}

// journal-ids INCIDENT stdout asserts that verify's JSON output names, as
// returned, exactly the destination MessageIds the redrive journal sent.
func cmdJournalIDs(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || args[1] != "stdout" {
		ts.Fatalf("usage: journal-ids INCIDENT stdout")
	}
	entries, err := journal.ReadEntries(ts.MkAbs(args[0] + "/" + incident.JournalFile))
	ts.Check(err)
	var out struct {
		Returned []verify.Returned `json:"returned"`
	}
	ts.Check(json.Unmarshal([]byte(ts.ReadFile("stdout")), &out))
	want := map[string]string{}
	for _, e := range entries {
		if e.Op == journal.OpSent {
			want[e.DestMessageID] = e.DLQMessageID
		}
	}
	if len(out.Returned) != len(want) {
		ts.Fatalf("%d returned, journal sent %d", len(out.Returned), len(want))
	}
	for _, r := range out.Returned {
		if dlqID, ok := want[r.MessageID]; !ok || dlqID != r.DLQMessageID {
			ts.Fatalf("returned %s (was %s) is not a sent entry of the journal", r.MessageID, r.DLQMessageID)
		}
	}
}

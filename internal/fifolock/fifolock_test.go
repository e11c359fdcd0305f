package fifolock

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

func TestMain(m *testing.M) { os.Exit(localaws.Wrap(m).Run()) }

// Sixteen receivers on five groups through the proxy: no receive ever
// returns a group another receiver still holds, and every message comes
// out once, in its group's order.
func TestReceivesOfAGroupNeverOverlap(t *testing.T) {
	srv := httptest.NewServer(New(localaws.Endpoint(t)))
	defer srv.Close()
	cfg := localaws.Config(t)
	cfg.BaseEndpoint = aws.String(srv.URL)
	c := sqs.NewFromConfig(cfg)
	ctx := context.Background()
	q, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(localaws.UniqueName("lock") + ".fifo"), Attributes: map[string]string{"FifoQueue": "true"}})
	if err != nil {
		t.Fatal(err)
	}
	url := q.QueueUrl
	for seq := range 20 {
		var entries []types.SendMessageBatchRequestEntry
		for g := range 5 {
			id := fmt.Sprintf("g%d-%d", g, seq)
			entries = append(entries, types.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(g)), MessageBody: aws.String(id),
				MessageGroupId: aws.String("g" + strconv.Itoa(g)), MessageDeduplicationId: aws.String(id)})
		}
		if _, err := c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: url, Entries: entries}); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	holder := map[string]int{}
	got := map[string][]string{}
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for empty := 0; empty < 2; {
				out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 1,
					MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameMessageGroupId}})
				if err != nil {
					t.Error(err)
					return
				}
				if len(out.Messages) == 0 {
					empty++
					continue
				}
				mu.Lock()
				for _, m := range out.Messages {
					g := m.Attributes["MessageGroupId"]
					if h, ok := holder[g]; ok && h != w {
						t.Errorf("group %s handed to receiver %d while receiver %d holds it", g, w, h)
					}
					holder[g] = w
					got[g] = append(got[g], aws.ToString(m.Body))
				}
				mu.Unlock()
				var del []types.DeleteMessageBatchRequestEntry
				for i, m := range out.Messages {
					del = append(del, types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle})
				}
				// Let go of the groups before the delete: from the delete
				// on, SQS may hand them to another receiver.
				mu.Lock()
				for _, m := range out.Messages {
					delete(holder, m.Attributes["MessageGroupId"])
				}
				mu.Unlock()
				if _, err := c.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: url, Entries: del}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for g := range 5 {
		seqs := got["g"+strconv.Itoa(g)]
		if len(seqs) != 20 {
			t.Fatalf("group g%d: %d messages, want 20", g, len(seqs))
		}
		for i, b := range seqs {
			if b != fmt.Sprintf("g%d-%d", g, i) {
				t.Fatalf("group g%d out of order: %v", g, seqs)
			}
		}
	}
}

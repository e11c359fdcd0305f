package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/internal/fifolock"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

// TestSlowRedriveFIFOKeepsGroupOrder moves a FIFO DLQ holding several message
// groups, interleaved, with many batches in flight (fixed and adaptive):
// every group reaches the destination complete, once, in its order. SQS
// hands out a group's next messages only once its earlier ones are
// deleted, and the mover deletes a batch only after its send, so the
// sends of a group follow one another whatever the concurrency. moto does
// not keep SQS's half of that promise under concurrent receives; the
// stand-in internal/fifolock, in front of it, does.
func TestSlowRedriveFIFOKeepsGroupOrder(t *testing.T) {
	slowOnly(t)
	t.Parallel()
	lock := httptest.NewServer(fifolock.New(localaws.Endpoint(t)))
	defer lock.Close()
	for _, flags := range [][]string{{"--workers", "16"}, {}} {
		t.Run(strings.Join(append([]string{"workers"}, flags...), " "), func(t *testing.T) {
			s := localaws.NewSeeder(localaws.Config(t))
			ctx := context.Background()
			name := localaws.UniqueName("fifo")
			fifo := map[string]string{"FifoQueue": "true"}
			src, err := s.CreateQueue(ctx, name+".fifo", fifo)
			if err != nil {
				t.Fatal(err)
			}
			dlq, err := s.CreateQueue(ctx, name+"-dlq.fifo", fifo)
			if err != nil {
				t.Fatal(err)
			}
			const groups, per = 5, 20
			sendFIFO(t, s, dlq, groups, per)
			var stdout, stderr strings.Builder
			d := cmdutil.NewDeps(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}, nil)
			code := run(ctx, d, append([]string{"redrive", "--queue", name + "-dlq.fifo", "--to", name + ".fifo", "--rate", "max", "--canary", "0", "--yes",
				"--endpoint-url", lock.URL, "--incident", t.TempDir(), "--output", "json"}, flags...))
			if code != 0 {
				t.Fatalf("exit %d\n%s%s", code, stdout.String(), stderr.String())
			}
			got, err := s.Drain(ctx, src)
			if err != nil {
				t.Fatal(err)
			}
			order := map[string][]int{}
			for _, m := range got {
				var b struct {
					G   string `json:"g"`
					Seq int    `json:"seq"`
				}
				if err := json.Unmarshal([]byte(aws.ToString(m.Body)), &b); err != nil {
					t.Fatal(err)
				}
				if g := m.Attributes["MessageGroupId"]; g != b.G {
					t.Fatalf("message %s arrived in group %q", aws.ToString(m.Body), g)
				}
				order[b.G] = append(order[b.G], b.Seq)
			}
			for g := range groups {
				seqs := order["g"+strconv.Itoa(g)]
				if len(seqs) != per {
					t.Fatalf("group g%d: %d messages arrived, want %d: %v", g, len(seqs), per, seqs)
				}
				for i, seq := range seqs {
					if seq != i {
						t.Fatalf("group g%d out of order: %v", g, seqs)
					}
				}
			}
			t.Logf("%s", stdout.String()[strings.LastIndex(stdout.String(), `{"`):])
		})
	}
}

// sendFIFO puts per messages in each of groups groups into url, the groups
// interleaved, ten to a batch.
func sendFIFO(t *testing.T, s *localaws.Seeder, url string, groups, per int) {
	t.Helper()
	var entries []types.SendMessageBatchRequestEntry
	flush := func() {
		if len(entries) == 0 {
			return
		}
		out, err := s.SQS.SendMessageBatch(context.Background(), &sqs.SendMessageBatchInput{QueueUrl: aws.String(url), Entries: entries})
		if err != nil || len(out.Failed) > 0 {
			t.Fatalf("send: %v %+v", err, out)
		}
		entries = nil
	}
	for seq := range per {
		for g := range groups {
			group := "g" + strconv.Itoa(g)
			entries = append(entries, types.SendMessageBatchRequestEntry{
				Id: aws.String(strconv.Itoa(len(entries))), MessageBody: aws.String(fmt.Sprintf(`{"g":%q,"seq":%d}`, group, seq)),
				MessageGroupId: aws.String(group), MessageDeduplicationId: aws.String(fmt.Sprintf("%s-%d", group, seq)),
			})
			if len(entries) == 10 {
				flush()
			}
		}
	}
	flush()
}

package crashkill

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

// Body is message i's body in the scale benches: its index is how
// CountDrain counts it.
func Body(i int) string {
	return fmt.Sprintf(`{"order_id":"o-%08d","version":2,"total":%d.5}`, i, i)
}

// Fill puts n messages (Body 0 … n-1, with attrs) into url with 16
// senders, keeping no bodies in memory.
func Fill(ctx context.Context, s *localaws.Seeder, url string, n int, attrs map[string]string) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	var first atomic.Value
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				start := int(next.Add(500)) - 500
				if start >= n || first.Load() != nil {
					return
				}
				part := make([]string, 0, 500)
				for i := start; i < min(start+500, n); i++ {
					part = append(part, Body(i))
				}
				if err := s.Send(ctx, url, part, attrs); err != nil {
					first.CompareAndSwap(nil, err)
				}
			}
		}()
	}
	wg.Wait()
	if err, ok := first.Load().(error); ok {
		return err
	}
	return nil
}

// CountDrain drains url with 16 receivers and counts each Body's copies by
// its index: it returns the bodies never received and the extra copies,
// and an error for a message without its attribute attr = want.
func CountDrain(ctx context.Context, c *sqs.Client, url string, n int, attr, want string) (lost, dups int, err error) {
	seen := make([]uint8, n)
	var mu sync.Mutex
	var wg sync.WaitGroup
	var empty atomic.Int32
	var first atomic.Value
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for empty.Load() < 32 && first.Load() == nil {
				out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 10,
					WaitTimeSeconds: 1, VisibilityTimeout: 60, MessageAttributeNames: []string{"All"}})
				if err != nil {
					first.CompareAndSwap(nil, err)
					return
				}
				if len(out.Messages) == 0 {
					empty.Add(1)
					continue
				}
				empty.Store(0)
				var del []types.DeleteMessageBatchRequestEntry
				mu.Lock()
				for i, m := range out.Messages {
					if aws.ToString(m.MessageAttributes[attr].StringValue) != want {
						first.CompareAndSwap(nil, fmt.Errorf("body %s lost its attributes", aws.ToString(m.Body)))
					}
					var b struct {
						Order string `json:"order_id"`
					}
					json.Unmarshal([]byte(aws.ToString(m.Body)), &b)
					if k, err := strconv.Atoi(strings.TrimPrefix(b.Order, "o-")); err == nil && k < n && seen[k] < 255 {
						seen[k]++
					}
					del = append(del, types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle})
				}
				mu.Unlock()
				if _, err := c.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(url), Entries: del}); err != nil {
					first.CompareAndSwap(nil, err)
				}
			}
		}()
	}
	wg.Wait()
	if e, ok := first.Load().(error); ok {
		return 0, 0, e
	}
	for _, k := range seen {
		switch {
		case k == 0:
			lost++
		case k > 1:
			dups += int(k) - 1
		}
	}
	return lost, dups, nil
}

// ScaleResult sums up one move killed many times.
type ScaleResult struct {
	Kills       int   // SIGKILLs that hit a running move
	Lost, Dups  int   // after the last run, from the destination
	Left        int   // still in the DLQ
	MaxJournal  int64 // the largest journal seen right after a kill
	MaxIncident int64 // the largest incident directory seen right after a kill
}

// Scale moves one DLQ of cfg.Messages and SIGKILLs the move cfg.Runs
// times at a random moment in [0, cfg.KillAfter) of each run, the next run
// resuming it; a last run finishes the move. Every body must arrive, the
// duplicates stay within cfg.Runs × Bound, and the journal within 32 MiB.
func Scale(ctx context.Context, s *localaws.Seeder, cfg Config) (ScaleResult, error) {
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed+1))
	var res ScaleResult
	name := localaws.UniqueName("crashscale")
	src, dlq, err := s.CreatePair(ctx, name, name+"-dlq", 3)
	if err != nil {
		return res, err
	}
	defer deleteQueues(s, src, dlq)
	if err := Fill(ctx, s, dlq, cfg.Messages, map[string]string{"ErrorCode": "E"}); err != nil {
		return res, err
	}
	inc := filepath.Join(cfg.Dir, name)
	args := []string{"redrive", "--queue", name + "-dlq", "--rate", "max", "--canary", "0", "--yes", "--quiet",
		"--visibility", strconv.Itoa(cfg.Visibility), "--incident", inc}
	// The kills are spread over the whole move: kill k comes once the DLQ
	// is down to a random point of the move (sorted), plus a random moment
	// of up to cfg.KillAfter, so that later kills find a compacted journal.
	points := make([]int, cfg.Runs)
	for k := range points {
		points[k] = cfg.Messages - int(float64(cfg.Messages)*(0.02+0.96*rng.Float64()))
	}
	sort.Sort(sort.Reverse(sort.IntSlice(points)))
	for k := 0; k < cfg.Runs; k++ {
		cmd := exec.Command(cfg.Bin, args...)
		if err := cmd.Start(); err != nil {
			return res, err
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		if !waitDepth(ctx, s, dlq, points[k], exited) {
			fmt.Fprintf(cfg.Log, "run %d: the move ended before its kill point\n", k+1)
			break
		}
		killAt := time.Duration(rng.Int64N(int64(cfg.KillAfter)))
		select {
		case <-exited:
			fmt.Fprintf(cfg.Log, "run %d: the move ended before the kill\n", k+1)
			k = cfg.Runs
			continue
		case <-time.After(killAt):
		}
		cmd.Process.Signal(syscall.SIGKILL)
		<-exited
		res.Kills++
		j, _ := os.Stat(filepath.Join(inc, "redrive-journal.jsonl"))
		if j != nil {
			res.MaxJournal = max(res.MaxJournal, j.Size())
		}
		res.MaxIncident = max(res.MaxIncident, DirSize(inc))
		v, f, _ := s.Depth(ctx, dlq)
		fmt.Fprintf(cfg.Log, "kill %d (DLQ at %d, then %s): DLQ %d left, journal %d KiB\n", res.Kills, points[k], killAt.Round(time.Millisecond), v+f, sizeOf(j)>>10)
	}
	out, err := exec.CommandContext(ctx, cfg.Bin, args...).CombinedOutput()
	if err != nil {
		return res, fmt.Errorf("the last run: %v\n%s", err, out)
	}
	res.Lost, res.Dups, err = CountDrain(ctx, s.SQS, src, cfg.Messages, "ErrorCode", "E")
	if err != nil {
		return res, err
	}
	res.Left, _, _ = s.Depth(ctx, dlq)
	switch {
	case res.Lost > 0:
		return res, fmt.Errorf("LOST %d message(s)", res.Lost)
	case res.Left > 0:
		return res, fmt.Errorf("%d message(s) still in the DLQ after the last run", res.Left)
	case res.Dups > res.Kills*cfg.Bound():
		return res, fmt.Errorf("%d duplicates, more than %d kills × %d", res.Dups, res.Kills, cfg.Bound())
	case res.MaxJournal > 32<<20:
		return res, fmt.Errorf("the journal reached %d bytes, more than 32 MiB", res.MaxJournal)
	}
	return res, nil
}

func sizeOf(fi fs.FileInfo) int64 {
	if fi == nil {
		return 0
	}
	return fi.Size()
}

// DirSize is the bytes of the files under dir: what an incident directory
// holds on disk.
func DirSize(dir string) int64 {
	var total int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				total += info.Size()
			}
		}
		return nil
	})
	return total
}

// waitDepth waits until the DLQ's visible messages are at most depth
// (false when the run exited first).
func waitDepth(ctx context.Context, s *localaws.Seeder, dlq string, depth int, exited <-chan struct{}) bool {
	for {
		if v, _, err := s.Depth(ctx, dlq); err == nil && v <= depth {
			return true
		}
		select {
		case <-exited:
			return false
		case <-time.After(100 * time.Millisecond):
		}
	}
}

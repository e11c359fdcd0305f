// Command movebench measures mfdlq redrive against the SQS server in
// AWS_ENDPOINT_URL (bench/run.sh runs it):
//
//	-mode rate        N messages at --rate R: wall time vs N/R, exactly-once check
//	-mode throughput  --rate max vs a bare receive/send/delete batch loop with
//	                  the same number of workers, alternated in one run
//	-mode faults      through the fault-injecting proxy: zero lost, completes
//	-mode latency     through a proxy adding -latency to every call: mfdlq's
//	                  defaults, fixed --workers and bare loops, alternated
//	-mode calls       -rounds redrives through the latency proxy: the calls
//	                  before the first send, the move in 100 ms steps, and a
//	                  line a round to set a slow round beside a fast one
//	-mode memory      one big move at --rate max: peak RSS, journal, resume
//	-mode scale       -n messages at --rate max beside the bare 32-worker loop
//	                  on a queue as deep: throughput, peak RSS, incident
//	                  directory, rerun RSS, every body delivered (streamed);
//	                  with -dedupe-transform, through --dedupe --key --transform
//	-mode export      export -n with --delete to .jsonl.gz beside the bare
//	                  receive/write/delete loop: rate, peak RSS, the file
//
// -mode rate with -latency goes through the latency proxy too.
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/bench/crashkill"
	"github.com/mfdlq/mfdlq/internal/faultproxy"
	"github.com/mfdlq/mfdlq/internal/localaws"
	moved "github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/sqsapi"
)

var (
	bin     = flag.String("bin", "bin/mfdlq", "the mfdlq binary")
	mode    = flag.String("mode", "rate", "rate, throughput, faults, latency, calls, memory, scale or export")
	n       = flag.Int("n", 340, "messages")
	rateF   = flag.String("rate", "10", "--rate for -mode rate")
	workers = flag.Int("workers", 2, "workers for -mode throughput")
	rounds  = flag.Int("rounds", 3, "alternated rounds for -mode throughput")
	faults  = flag.Float64("faults", 0.10, "share of calls broken for -mode faults")
	latency = flag.Duration("latency", 0, "added to every call (-mode latency, rate)")
	// contenders of -mode latency: default (mfdlq's defaults), wN (mfdlq
	// --workers N), bareN (the bare loop with N workers), bare@peak (the
	// bare loop with as many workers as the defaults reached).
	// trace runs each redrive with redrive.TraceEnv set and prints its
	// phases' start times (-mode latency, scale).
	// dedupeTransform makes -mode scale's mfdlq run --dedupe --key
	// .order_id --transform '.version = 1' beside the bare loop.
	dedupeTransform = flag.Bool("dedupe-transform", false, "-mode scale: redrive with --dedupe --key .order_id --transform")
	// scaleArgs are more redrive flags for -mode scale (space-separated),
	// to take the dedupe+transform path apart.
	scaleArgs  = flag.String("scale-args", "", "-mode scale: more redrive flags, space-separated")
	trace      = flag.Bool("trace", false, "print each redrive's phase times (MFDLQ_TRACE)")
	contenders = flag.String("contenders", "default,w1,w8,w32,bare1,bare32", "what -mode latency compares")
	// gctrace runs each redrive with GODEBUG=gctrace=1: -mode calls
	// counts its collections and their pauses.
	gctrace = flag.Bool("gctrace", false, "run each redrive with GODEBUG=gctrace=1 (-mode calls)")
	// queues makes -mode calls create that many idle queues first: the
	// source-queue scan (fauxqs answers no ListDeadLetterSourceQueues)
	// reads each, as in an account of many queues.
	queues = flag.Int("queues", 0, "idle queues created before -mode calls' rounds")
)

func main() {
	flag.Parse()
	cfg, err := config.LoadDefaultConfig(context.Background())
	check(err)
	s := localaws.NewSeeder(cfg)
	switch *mode {
	case "rate":
		if *latency > 0 {
			rateLatencyMode(s, cfg)
			return
		}
		rateMode(s)
	case "latency":
		latencyMode(s, cfg)
	case "calls":
		callsMode(s)
	case "memory":
		memoryMode(s)
	case "scale":
		scaleMode(s, sqsapi.New(cfg))
	case "export":
		exportMode(s, sqsapi.New(cfg))
	case "throughput":
		throughputMode(s, sqsapi.New(cfg))
	case "faults":
		faultsMode(s)
	default:
		check(fmt.Errorf("unknown -mode %s", *mode))
	}
}

// lastIncident is the incident directory of the last redrive, kept for a
// post-mortem when a check fails.
var lastIncident string

// lastState is the last redrive's process state: its CPU time.
var lastState *os.ProcessState

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "movebench:", err, "(last incident:", lastIncident+")")
		os.Exit(1)
	}
}

// fill creates a source/DLQ pair and puts n messages with two attributes
// into the DLQ.
func fill(s *localaws.Seeder, n int) (name, src, dlq string, bodies []string) {
	ctx := context.Background()
	name = localaws.UniqueName("bench")
	src, err := s.CreateQueue(ctx, name, nil)
	check(err)
	dlq, err = s.CreateQueue(ctx, name+"-dlq", nil)
	check(err)
	bodies = make([]string, n)
	for i := range bodies {
		bodies[i] = fmt.Sprintf(`{"order_id":"o-%05d","version":2,"total":%d.5}`, i, i)
	}
	var wg sync.WaitGroup
	for start := 0; start < n; start += 500 {
		wg.Add(1)
		go func(part []string) {
			defer wg.Done()
			check(s.Send(ctx, dlq, part, map[string]string{"ErrorCode": "E", "Tenant": "acme"}))
		}(bodies[start:min(start+500, n)])
	}
	wg.Wait()
	return name, src, dlq, bodies
}

func redrive(name string, extra ...string) (time.Duration, []byte, error) {
	dir, _ := os.MkdirTemp("", "movebench-")
	lastIncident = dir
	args := append([]string{"redrive", "--queue", name + "-dlq", "--to", name, "--canary", "0", "--yes", "--incident", dir}, extra...)
	start := time.Now()
	c := exec.Command(*bin, args...)
	if *trace {
		c.Env = append(os.Environ(), moved.TraceEnv+"=1")
	}
	if *gctrace {
		c.Env = append(c.Environ(), "GODEBUG=gctrace=1")
	}
	out, err := c.CombinedOutput()
	el := time.Since(start)
	lastState = c.ProcessState
	if *trace {
		for _, line := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(line, "trace:") {
				fmt.Println(line)
			}
		}
		fmt.Printf("trace: %6.1f ms exited\n", float64(el.Microseconds())/1000)
	}
	return el, out, err
}

// verify drains the destination: every body at least once with its
// attributes; returns the duplicates.
func verify(label string, s *localaws.Seeder, src, dlq string, bodies []string) int {
	got := drainAll(s, src)
	// Messages a broken response left hidden in the DLQ come back after
	// their visibility timeout: wait for them rather than call them lost.
	left := drainAll(s, dlq)
	dups, err := crashkill.Compare(bodies, append(got, left...), "Tenant", "acme")
	if err != nil {
		check(fmt.Errorf("%s: %w", label, err))
	}
	if len(left) != 0 {
		check(fmt.Errorf("%s: %d left in the DLQ", label, len(left)))
	}
	return dups
}

func rateMode(s *localaws.Seeder) {
	name, src, dlq, bodies := fill(s, *n)
	el, out, err := redrive(name, "--rate", *rateF)
	if err != nil {
		check(fmt.Errorf("%v\n%s", err, out))
	}
	r, _ := strconv.ParseFloat(*rateF, 64)
	dups := verify("rate", s, src, dlq, bodies)
	fmt.Printf("rate: %d messages at --rate %s: %.2f s wall (ideal %.1f s), %d duplicate(s), DLQ empty\n", *n, *rateF, el.Seconds(), float64(*n)/r, dups)
}

func faultsMode(s *localaws.Seeder) {
	name, src, dlq, bodies := fill(s, *n)
	proxy := faultproxy.New(os.Getenv("AWS_ENDPOINT_URL"), *faults, uint64(time.Now().UnixNano()))
	srv := httptest.NewServer(proxy)
	defer srv.Close()
	el, out, err := redrive(name, "--rate", "max", "--visibility", "10", "--endpoint-url", srv.URL)
	calls, kinds := proxy.Counts()
	if err != nil {
		check(fmt.Errorf("run did not complete: %v\n%s", err, out))
	}
	dups := verify("faults", s, src, dlq, bodies)
	fmt.Printf("faults: %d messages through %.0f%% faults (%d calls, %v): completed in %.1f s, lost 0, %d duplicate(s), DLQ empty\n",
		*n, *faults*100, calls, kinds, el.Seconds(), dups)
}

// moveSeconds is the move phase of the last redrive, from its incident's
// redrive event: the process's wall time less startup, queue resolution,
// planning and the summary.
func moveSeconds() float64 { return lastRedrive().DurationSeconds }

// throughputMode compares mfdlq with a bare loop that uses the same SQS
// client (sqsapi.New: the whole response body read before decoding), so that
// neither side strands a batch on the SDK's closed-connection bug.
func throughputMode(s *localaws.Seeder, client *sqs.Client) {
	bare := make([]float64, *rounds)
	tool := make([]float64, *rounds)
	engine := make([]float64, *rounds)
	runBare := func(r int) {
		_, src, dlq, bodies := fill(s, *n)
		settle()
		el := bareLoop(client, dlq, src, *n, *workers)
		verify("bare loop", s, src, dlq, bodies)
		bare[r] = float64(*n) / el.Seconds()
	}
	runTool := func(r int) {
		name, src, dlq, bodies := fill(s, *n)
		settle()
		el, out, err := redrive(name, "--rate", "max", "--workers", strconv.Itoa(*workers), "--quiet")
		if err != nil {
			check(fmt.Errorf("%v\n%s", err, out))
		}
		tool[r] = float64(*n) / el.Seconds()
		engine[r] = float64(*n) / moveSeconds()
		verify("mfdlq", s, src, dlq, bodies)
	}
	for r := range *rounds {
		// Alternate which side goes first, so that neither always runs
		// right after the other's verification drain.
		if r%2 == 0 {
			runBare(r)
			runTool(r)
		} else {
			runTool(r)
			runBare(r)
		}
		fmt.Printf("round %d: bare loop %.0f msg/s, mfdlq redrive %.0f msg/s (process), %.0f msg/s (move phase): %.0f%%\n",
			r+1, bare[r], tool[r], engine[r], 100*tool[r]/bare[r])
	}
	b, t, e := median(bare), median(tool), median(engine)
	fmt.Printf("throughput: %d messages, %d workers, %d rounds: median bare loop %.0f msg/s, median mfdlq %.0f msg/s (whole process): %.0f%% of the bare loop\n",
		*n, *workers, *rounds, b, t, 100*t/b)
	fmt.Printf("move phase only (the redrive event's duration, without process start, queue resolution and planning): %.0f msg/s, %.0f%% of the bare loop\n",
		e, 100*e/b)
	// fauxqs's speed drifts between rounds; the ratio within a round, where
	// both ran back to back, is the other view.
	var paired []float64
	for r := range bare {
		paired = append(paired, tool[r]/bare[r])
	}
	fmt.Printf("paired: median of the per-round ratios (whole process): %.0f%%\n", 100*median(paired))
}

// settle lets the server finish with the fill (fauxqs collects garbage
// after a burst of sends) before a measured run starts.
func settle() { time.Sleep(time.Second) }

// bareLoop is the floor to compare with: receive 10, send 10, delete 10,
// no journal, no pacing, no checks.
func bareLoop(c *sqs.Client, from, to string, n, workers int) time.Duration {
	// Like mfdlq, it cancels the receives still polling once all moved.
	ctx, done := context.WithCancel(context.Background())
	defer done()
	var moved atomic.Int64
	var mu sync.Mutex
	ids := map[string]bool{} // fauxqs may hand a message out twice
	var wg sync.WaitGroup
	start := time.Now()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for moved.Load() < int64(n) {
				out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(from), MaxNumberOfMessages: 10, WaitTimeSeconds: 1,
					VisibilityTimeout: 30, MessageAttributeNames: []string{"All"}})
				if ctx.Err() != nil {
					return
				}
				check(err)
				if len(out.Messages) == 0 {
					continue
				}
				var send []types.SendMessageBatchRequestEntry
				var del []types.DeleteMessageBatchRequestEntry
				for i, m := range out.Messages {
					id := aws.String(strconv.Itoa(i))
					send = append(send, types.SendMessageBatchRequestEntry{Id: id, MessageBody: m.Body, MessageAttributes: m.MessageAttributes})
					del = append(del, types.DeleteMessageBatchRequestEntry{Id: id, ReceiptHandle: m.ReceiptHandle})
				}
				_, err = c.SendMessageBatch(context.Background(), &sqs.SendMessageBatchInput{QueueUrl: aws.String(to), Entries: send})
				check(err)
				_, err = c.DeleteMessageBatch(context.Background(), &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(from), Entries: del})
				check(err)
				mu.Lock()
				for _, m := range out.Messages {
					ids[aws.ToString(m.MessageId)] = true
				}
				if moved.Store(int64(len(ids))); len(ids) >= n {
					done()
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return time.Since(start)
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// drainAll drains url until it holds nothing, waiting for messages that a
// broken response left hidden (45 s at most).
func drainAll(s *localaws.Seeder, url string) []types.Message {
	var all []types.Message
	// The deadline counts from the last batch drained, not from the start:
	// draining a million takes minutes, and a batch a lost receive answer
	// hid (the Seeder's visibility is 30 s) reappears only after them —
	// counted from the start, a big drain called such batches lost (a
	// million-message run: "LOST 50", beside six of the SDK's "use of
	// closed network connection" warnings in the drain, while mfdlq's
	// event said 1,000,000 moved, 0 failed).
	for deadline := time.Now().Add(45 * time.Second); ; time.Sleep(time.Second) {
		more, err := s.Drain(context.Background(), url)
		check(err)
		all = append(all, more...)
		if len(more) > 0 {
			deadline = time.Now().Add(45 * time.Second)
		}
		if v, f, _ := s.Depth(context.Background(), url); v+f == 0 || time.Now().After(deadline) {
			return all
		}
	}
}

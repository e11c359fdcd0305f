package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mfdlq/mfdlq/internal/faultproxy"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

// call is one AWS call a redrive made, as the recorder saw it: its
// operation, when it began and ended from the process's start, and for a
// receive how many messages it brought.
type call struct {
	op         string
	start, end time.Duration
	msgs       int
}

// recorder is an http.Handler in front of the latency proxy that notes
// every call's operation and span.
type recorder struct {
	next  http.Handler
	t0    time.Time
	mu    sync.Mutex
	calls []call
}

// bodyTap keeps a copy of what a handler writes.
type bodyTap struct {
	http.ResponseWriter
	buf bytes.Buffer
}

func (t *bodyTap) Write(b []byte) (int, error) {
	t.buf.Write(b)
	return t.ResponseWriter.Write(b)
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Since(rec.t0)
	op := r.Header.Get("X-Amz-Target")
	if op == "" {
		// Query protocol (CloudWatch, STS): the Action in the form body.
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		op = r.Method + " " + r.URL.Path
		for _, kv := range strings.Split(string(body), "&") {
			if a, ok := strings.CutPrefix(kv, "Action="); ok {
				op = a
			}
		}
	}
	op = op[strings.LastIndex(op, ".")+1:]
	tap := &bodyTap{ResponseWriter: w}
	rec.next.ServeHTTP(tap, r)
	c := call{op: op, start: start, end: time.Since(rec.t0)}
	if op == "ReceiveMessage" {
		c.msgs = bytes.Count(tap.buf.Bytes(), []byte(`"ReceiptHandle"`))
	}
	rec.mu.Lock()
	rec.calls = append(rec.calls, c)
	rec.mu.Unlock()
}

// callsMode runs -rounds redrives of n messages through the latency proxy
// and prints, for each, the AWS calls made before its first send, in the
// order they began (how many, how long the process took to reach the
// first send, how many overlapped another), the move phase in 100 ms
// steps, and a line to set a slow round beside a fast one: where the
// time went, the receives that came back empty, the calls' own time
// above the added latency, and the process's CPU. -bin may name several
// builds, comma-separated: each round runs each.
func callsMode(s *localaws.Seeder) {
	fmt.Printf("calls: %d messages, %s added to every call, %d rounds, %d idle queues\n", *n, *latency, *rounds, *queues)
	for range *queues {
		_, err := s.CreateQueue(context.Background(), localaws.UniqueName("idle"), nil)
		check(err)
	}
	// -bin A,B runs the builds in turn within each round: both meet the
	// server's queues as they grow, round by round.
	bins := strings.Split(*bin, ",")
	var lines []string
	for r := range *rounds {
		for _, b := range bins {
			*bin = b
			l := callsRound(s, r+1)
			if len(bins) > 1 {
				l += " [" + b + "]"
			}
			lines = append(lines, l)
		}
	}
	fmt.Println("rounds:")
	for _, l := range lines {
		fmt.Println(l)
	}
}

// callsRound is one round of callsMode; it returns the round's line.
func callsRound(s *localaws.Seeder, r int) string {
	name, _, _, _ := fill(s, *n)
	settle()
	load := loadavg()
	p := faultproxy.New(os.Getenv("AWS_ENDPOINT_URL"), 0, 1)
	p.Delay = *latency
	rec := &recorder{next: p}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	rec.t0 = time.Now()
	el, out, err := redrive(name, "--rate", "max", "--quiet", "--endpoint-url", srv.URL)
	if err != nil {
		check(fmt.Errorf("%v\n%s", err, out))
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	sort.Slice(rec.calls, func(i, j int) bool { return rec.calls[i].start < rec.calls[j].start })
	first := -1
	for i, c := range rec.calls {
		if c.op == "SendMessageBatch" {
			first = i
			break
		}
	}
	if first < 0 {
		check(fmt.Errorf("no SendMessageBatch among %d calls", len(rec.calls)))
	}
	fmt.Printf("round %d: load %s\n", r, load)
	overlapped := 0
	for i, c := range rec.calls[:first] {
		mark := ""
		if i > 0 && c.start < rec.calls[i-1].end {
			mark, overlapped = " (overlaps the one before)", overlapped+1
		}
		fmt.Printf("%8.0f ms %6.0f ms  %s%s\n", ms(c.start), ms(c.end-c.start), c.op, mark)
	}
	// The tail: what the process does after its last delete.
	last := 0
	for i, c := range rec.calls {
		if c.op == "DeleteMessageBatch" && c.end > rec.calls[last].end {
			last = i
		}
	}
	fmt.Printf("after the last delete (ends at %.0f ms):\n", ms(rec.calls[last].end))
	for _, c := range rec.calls {
		if c.start > rec.calls[last].start && c.op != "DeleteMessageBatch" && c.op != "ReceiveMessage" {
			fmt.Printf("%8.0f ms %6.0f ms  %s\n", ms(c.start), ms(c.end-c.start), c.op)
		}
	}
	timeline(rec.calls, rec.calls[first].start)
	byOp := map[string]int{}
	for _, c := range rec.calls {
		byOp[c.op]++
	}
	ops := make([]string, 0, len(byOp))
	for op := range byOp {
		ops = append(ops, op)
	}
	sort.Slice(ops, func(i, j int) bool { return byOp[ops[i]] > byOp[ops[j]] })
	fmt.Print("calls by operation:")
	for _, op := range ops {
		fmt.Printf(" %s %d", op, byOp[op])
	}
	fmt.Println()
	fmt.Printf("first send at %.0f ms of the process's %.0f ms (the process's start is before the first call): %d calls before it, %d of them overlapping the one before; %d calls in all, %.0f msg/s whole process\n",
		ms(rec.calls[first].start), ms(el), first, overlapped, len(rec.calls), float64(*n)/el.Seconds())
	return roundLine(r, load, rec.calls, first, last, el, out)
}

// roundLine is callsMode's line for round r: where the time went, the
// receives and the empty ones, the calls' own time above the added
// latency (the server's and the machine's), the process's CPU and GC.
func roundLine(r int, load string, calls []call, first, last int, el time.Duration, out []byte) string {
	empty, recvs := 0, 0
	var own [3]time.Duration
	var cnt [3]int
	kind := map[string]int{"ReceiveMessage": 0, "SendMessageBatch": 1, "DeleteMessageBatch": 2}
	for _, c := range calls[first:] {
		i, ok := kind[c.op]
		if !ok {
			continue
		}
		own[i] += c.end - c.start - *latency
		cnt[i]++
		if i == 0 {
			recvs++
			if c.msgs == 0 {
				empty++
			}
		}
	}
	mean := func(i int) float64 {
		if cnt[i] == 0 {
			return 0
		}
		return ms(own[i] / time.Duration(cnt[i]))
	}
	cpu := time.Duration(0)
	if lastState != nil {
		cpu = lastState.UserTime() + lastState.SystemTime()
	}
	gcs, pause := gcOf(out)
	reads := 0 // the plan's queue reads: one per queue in a scan for sources
	for _, c := range calls[:first] {
		if c.op == "GetQueueAttributes" {
			reads++
		}
	}
	return fmt.Sprintf("round %d (load %s): %5.0f msg/s; first send %4.0f ms after %d calls (%d GetQueueAttributes), last delete ends %5.0f ms, exit %5.0f ms; move phase %5.0f msg/s; receives %d, %d empty; own time a call (ms) recv %.1f send %.1f del %.1f; CPU %.0f ms, %d GCs (%.1f ms stopped)",
		r, load, float64(*n)/el.Seconds(), ms(calls[first].start), first, reads, ms(calls[last].end), ms(el), float64(*n)/moveSeconds(), recvs, empty, mean(0), mean(1), mean(2), ms(cpu), gcs, pause)
}

// gcOf counts the collections in a GODEBUG=gctrace=1 output and sums
// their stop-the-world pauses (the first and third wall-clock figures).
func gcOf(out []byte) (n int, pause float64) {
	for _, line := range strings.Split(string(out), "\n") {
		if !strings.HasPrefix(line, "gc ") {
			continue
		}
		n++
		_, clock, ok := strings.Cut(line, "%: ")
		if !ok {
			continue
		}
		parts := strings.Split(strings.Fields(clock)[0], "+")
		if len(parts) == 3 {
			for _, p := range []string{parts[0], parts[2]} {
				var v float64
				fmt.Sscanf(p, "%g", &v)
				pause += v
			}
		}
	}
	return n, pause
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// timeline prints the move phase in 100 ms steps from the first send: the
// calls of each kind that began in the step and the most in flight at once.
func timeline(calls []call, from time.Duration) {
	const step = 100 * time.Millisecond
	type bucket struct {
		recv, empty, send, del, peak int
		own                          time.Duration
	}
	var bs []bucket
	at := func(t time.Duration) *bucket {
		i := int((t - from) / step)
		for len(bs) <= i {
			bs = append(bs, bucket{})
		}
		return &bs[i]
	}
	for _, c := range calls {
		if c.start < from {
			continue
		}
		b := at(c.start)
		switch c.op {
		case "ReceiveMessage":
			b.recv++
			b.own += c.end - c.start - *latency
			if c.msgs == 0 {
				b.empty++
			}
		case "SendMessageBatch":
			b.send++
			b.own += c.end - c.start - *latency
		case "DeleteMessageBatch":
			b.del++
			b.own += c.end - c.start - *latency
		}
	}
	for i := range bs {
		t := from + time.Duration(i)*step + step/2
		for _, c := range calls {
			if c.start <= t && c.end > t {
				bs[i].peak++
			}
		}
	}
	fmt.Println("move phase, per 100 ms from the first send: receives (empty), sends, deletes begun; calls in flight at its middle; their mean time above the added latency")
	for i, b := range bs {
		own := 0.0
		if k := b.recv + b.send + b.del; k > 0 {
			own = ms(b.own / time.Duration(k))
		}
		fmt.Printf("%6.0f ms  recv %3d (%2d)  send %3d  del %3d  in flight %3d  own %6.1f ms\n", ms(from+time.Duration(i)*step), b.recv, b.empty, b.send, b.del, b.peak, own)
	}
}

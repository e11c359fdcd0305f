package main

import (
	"bytes"
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
// operation and when it began and ended, from the process's start.
type call struct {
	op         string
	start, end time.Duration
}

// recorder is an http.Handler in front of the latency proxy that notes
// every call's operation and span.
type recorder struct {
	next  http.Handler
	t0    time.Time
	mu    sync.Mutex
	calls []call
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
	rec.next.ServeHTTP(w, r)
	rec.mu.Lock()
	rec.calls = append(rec.calls, call{op: op, start: start, end: time.Since(rec.t0)})
	rec.mu.Unlock()
}

// callsMode runs one redrive of n messages through the latency proxy and
// prints the AWS calls made before its first send, in the order they
// began: how many, how long the process took to reach the first send, and
// how many of them overlapped another (ran concurrently).
func callsMode(s *localaws.Seeder) {
	name, _, _, _ := fill(s, *n)
	settle()
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
	fmt.Printf("calls: %d messages, %s added to every call, load %s\n", *n, *latency, loadavg())
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
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// timeline prints the move phase in 100 ms steps from the first send: the
// calls of each kind that began in the step and the most in flight at once.
func timeline(calls []call, from time.Duration) {
	const step = 100 * time.Millisecond
	type bucket struct{ recv, send, del, peak int }
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
		case "SendMessageBatch":
			b.send++
		case "DeleteMessageBatch":
			b.del++
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
	fmt.Println("move phase, per 100 ms from the first send: receives, sends, deletes begun; calls in flight at its middle")
	for i, b := range bs {
		fmt.Printf("%6.0f ms  recv %3d  send %3d  del %3d  in flight %3d\n", ms(from+time.Duration(i)*step), b.recv, b.send, b.del, b.peak)
	}
}

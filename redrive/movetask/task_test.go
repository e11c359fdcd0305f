package movetask

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/internal/movetasks"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// lostAnswer sits in front of the move-task stand-in: a StartMessageMoveTask
// reaches it and starts the task, but the client gets a 500 — the answer
// lost on the way back. It counts the starts that arrived.
type lostAnswer struct {
	next   http.Handler
	starts atomic.Int64
}

func (l *lostAnswer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("X-Amz-Target") != "AmazonSQS.StartMessageMoveTask" {
		l.next.ServeHTTP(w, r)
		return
	}
	l.starts.Add(1)
	l.next.ServeHTTP(httptest.NewRecorder(), r)
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.WriteHeader(http.StatusInternalServerError)
	fmt.Fprint(w, `{"__type":"com.amazonaws.sqs#InternalError","message":"We encountered an internal error."}`)
}

func nativeQueues(t *testing.T, n int) (c *sqs.Client, front *lostAnswer, dlq, src *sqsapi.Queue) {
	t.Helper()
	ctx := context.Background()
	cfg := localaws.Config(t)
	srv, err := movetasks.New(localaws.Endpoint(t), sqs.NewFromConfig(cfg))
	if err != nil {
		t.Fatal(err)
	}
	front = &lostAnswer{next: srv}
	hs := httptest.NewServer(front)
	t.Cleanup(hs.Close)
	// The SDK's usual retries (three attempts) are on: Native must not use them.
	c = sqsapi.New(cfg, func(o *sqs.Options) { o.BaseEndpoint = aws.String(hs.URL) })
	seed := localaws.NewSeeder(cfg)
	name := localaws.UniqueName("lost")
	srcURL, dlqURL, err := seed.CreatePair(ctx, name, name+"-dlq", 3)
	if err != nil {
		t.Fatal(err)
	}
	bodies := make([]string, n)
	for i := range bodies {
		bodies[i] = fmt.Sprint("m-", i)
	}
	if err := seed.Send(ctx, dlqURL, bodies, nil); err != nil {
		t.Fatal(err)
	}
	if dlq, err = sqsapi.Resolve(ctx, c, dlqURL, "us-east-1"); err != nil {
		t.Fatal(err)
	}
	if src, err = sqsapi.Resolve(ctx, c, srcURL, "us-east-1"); err != nil {
		t.Fatal(err)
	}
	return c, front, dlq, src
}

// StartMessageMoveTask is not idempotent: when its answer is lost, Native
// sends it once (no SDK retry that would meet the running task), lists the
// DLQ's tasks, finds the one that started and follows it to its end.
func TestNativeLostStartAnswerIsListedNotRetried(t *testing.T) {
	c, front, dlq, src := nativeQueues(t, 8)
	st, err := Native(context.Background(), c, dlq, src, 100, 50*time.Millisecond, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := front.starts.Load(); n != 1 {
		t.Fatalf("StartMessageMoveTask reached SQS %d times, want 1", n)
	}
	if st.Status != TaskCompleted || st.Moved != 8 {
		t.Fatalf("followed task ended %s, moved %d; want COMPLETED, 8", st.Status, st.Moved)
	}
}

// A start that fails while the listing shows no task is a NotStartedError:
// the caller may try another way (the FIFO fallback) knowing nothing moved.
func TestNativeFailedStartWithNoTaskIsNotStarted(t *testing.T) {
	c, front, _, src := nativeQueues(t, 1)
	// src is nobody's DLQ: the stand-in refuses the task, and lists none.
	_, err := Native(context.Background(), c, src, nil, 10, 50*time.Millisecond, nil)
	var ns *NotStartedError
	if !errors.As(err, &ns) || front.starts.Load() != 1 {
		t.Fatalf("err %v (starts %d), want a NotStartedError after one start", err, front.starts.Load())
	}
}

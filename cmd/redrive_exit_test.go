package cmd

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

func seedMoveDLQ(t *testing.T, n int) (s *localaws.Seeder, name, src, dlq string) {
	t.Helper()
	s = localaws.NewSeeder(localaws.Config(t))
	name, src, dlq, _ = seedOrders(t, s, "exit", n, nil)
	return s, name, src, dlq
}

// A DLQ deleted in the middle of a redrive exits 5 and says how many had
// moved by then. The DLQ is deleted once the first messages have arrived
// at the source (at --rate 10, 40 take 4 s): a fixed delay, on a loaded
// machine, could delete it before the run began.
func TestRedriveQueueDeletedMidRunExits5(t *testing.T) {
	t.Parallel()
	s, name, src, dlq := seedMoveDLQ(t, 40)
	var stdout, stderr strings.Builder
	d := cmdutil.NewDeps(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}, nil)
	go func() {
		ctx := context.Background()
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if v, f, err := s.Depth(ctx, src); err == nil && v+f > 0 {
				break
			}
		}
		if _, err := s.SQS.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(dlq)}); err != nil {
			t.Error(err)
		}
	}()
	code := run(context.Background(), d, []string{"redrive", "--queue", name + "-dlq", "--rate", "10", "--canary", "0", "--yes",
		"--workers", "1", "--endpoint-url", localaws.Endpoint(t), "--incident", t.TempDir(), "--output", "json"})
	t.Logf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	if code != cmdutil.ExitNotFound {
		t.Fatalf("exit %d, want %d", code, cmdutil.ExitNotFound)
	}
	if !strings.Contains(stdout.String(), `"type":"summary"`) || !strings.Contains(stderr.String(), "messages had moved before it stopped") {
		t.Fatal("the summary and the line must say what was moved")
	}
}

// A permission denied in the middle of a redrive (here: the delete, by a
// proxy answering as IAM would) exits 4; what was sent is journaled and
// not lost.
func TestRedriveDeniedMidRunExits4(t *testing.T) {
	t.Parallel()
	_, name, _, _ := seedMoveDLQ(t, 20)
	target, _ := url.Parse(localaws.Endpoint(t))
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Amz-Target") == "AmazonSQS.DeleteMessageBatch" {
			w.Header().Set("Content-Type", "application/x-amz-json-1.0")
			w.Header().Set("X-Amzn-Query-Error", "AccessDenied;Sender")
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `{"__type":"com.amazonaws.sqs#AccessDenied","message":"User is not authorized to perform: sqs:DeleteMessage"}`)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	defer srv.Close()
	var stdout, stderr strings.Builder
	d := cmdutil.NewDeps(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}, nil)
	code := run(context.Background(), d, []string{"redrive", "--queue", name + "-dlq", "--rate", "max", "--canary", "0", "--yes",
		"--endpoint-url", srv.URL, "--incident", t.TempDir()})
	t.Logf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	if code != cmdutil.ExitAuth {
		t.Fatalf("exit %d, want %d", code, cmdutil.ExitAuth)
	}
	if !strings.Contains(stderr.String(), "delete batch from") || !strings.Contains(stderr.String(), "docs/iam.md") {
		t.Fatal("the error must name the refused call and the IAM page")
	}
}

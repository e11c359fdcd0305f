package cmd

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

// The script commands of --notify: a topic with a queue subscribed, what
// the subscriber received, and a webhook answering a chosen status.
// webhook-redirect VAR TARGET answers every request with a 307 to TARGET:
// a webhook that sends its callers to another host.
func cmdWebhookRedirect(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: webhook-redirect VAR TARGET")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, args[1], http.StatusTemporaryRedirect)
	}))
	ts.Defer(srv.Close)
	ts.Setenv(args[0], srv.URL+"/services/T0/B0/SECRET")
}

// sns-subscribed VAR QUEUE creates a topic (its ARN in VAR) and QUEUE
// subscribed to it with raw delivery: what a team's pager pipe looks like.
func cmdSNSSubscribed(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: sns-subscribed VAR QUEUE")
	}
	ctx := context.Background()
	c := sns.NewFromConfig(fleetBase)
	t, err := c.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String(args[1] + "-topic")})
	ts.Check(err)
	_, err = seeder(ts).CreateQueue(ctx, args[1], nil)
	ts.Check(err)
	_, err = c.Subscribe(ctx, &sns.SubscribeInput{TopicArn: t.TopicArn, Protocol: aws.String("sqs"),
		Endpoint:   aws.String("arn:aws:sqs:" + localaws.Region + ":" + localaws.Account + ":" + args[1]),
		Attributes: map[string]string{"RawMessageDelivery": "true"}})
	ts.Check(err)
	ts.Setenv(args[0], aws.ToString(t.TopicArn))
}

// sqs-bodies QUEUE FILE receives what QUEUE holds (hiding it for a minute)
// and writes each body on a line of FILE.
func cmdSQSBodies(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: sqs-bodies QUEUE FILE")
	}
	ctx := context.Background()
	c := seeder(ts).SQS
	u, err := c.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(args[0])})
	ts.Check(err)
	var b strings.Builder
	for range 3 {
		out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: u.QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1, VisibilityTimeout: 60})
		ts.Check(err)
		for _, m := range out.Messages {
			b.WriteString(aws.ToString(m.Body) + "\n")
		}
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(b.String()), 0o600))
}

// webhook VAR STATUS FILE serves a webhook (its URL, with a secret-looking
// path, in VAR) that answers STATUS and appends each body it gets to FILE.
func cmdWebhook(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: webhook VAR STATUS FILE")
	}
	status, err := strconv.Atoi(args[1])
	ts.Check(err)
	file := ts.MkAbs(args[2])
	ts.Check(os.WriteFile(file, nil, 0o600))
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		if f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0o600); err == nil {
			f.Write(append(b, '\n'))
			f.Close()
		}
		mu.Unlock()
		w.WriteHeader(status)
	}))
	ts.Defer(srv.Close)
	ts.Setenv(args[0], srv.URL+"/services/T0/B0/SECRET")
}

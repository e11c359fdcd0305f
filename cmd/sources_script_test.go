package cmd

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mfdlq/mfdlq/internal/dlqsource"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

// sourceProxy is internal/dlqsource in front of this test binary's local
// AWS, shared by the scripts that ask for it: it remembers where each
// message was sent, so the messages must be sent through it.
var sourceProxy struct {
	once sync.Once
	url  string
	seed *localaws.Seeder // sends and receives through the proxy
	err  error
}

// startSourceProxy starts the proxy once, in front of backend (moto).
func startSourceProxy(backend string) error {
	sourceProxy.once.Do(func() {
		cfg, err := localCfg(backend)
		if err != nil {
			sourceProxy.err = err
			return
		}
		p, err := dlqsource.New(backend, sqs.NewFromConfig(cfg))
		if err != nil {
			sourceProxy.err = err
			return
		}
		srv := httptest.NewServer(p) // lives as long as the test binary
		cfg.BaseEndpoint = aws.String(srv.URL)
		sourceProxy.url, sourceProxy.seed = srv.URL, localaws.NewSeeder(cfg)
	})
	return sourceProxy.err
}

func localCfg(endpoint string) (aws.Config, error) {
	return config.LoadDefaultConfig(context.Background(), config.WithRegion(localaws.Region), config.WithBaseEndpoint(endpoint),
		config.WithCredentialsProvider(aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "test", SecretAccessKey: "test"}, nil
		})))
}

// dlqsource puts internal/dlqsource between the rest of the script and
// the local AWS: every mfdlq run after it receives DeadLetterQueueSourceArn
// on the messages a redrive policy moved, as from SQS.
func cmdDLQSource(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 0 {
		ts.Fatalf("usage: dlqsource")
	}
	ts.Check(startSourceProxy(ts.Getenv("AWS_ENDPOINT_URL")))
	ts.Setenv("AWS_ENDPOINT_URL", sourceProxy.url)
}

// sqs-shared DLQ SOURCE... creates a DLQ and source queues that all
// dead-letter into it after one receive (maxReceiveCount 1, visibility 0
// so that the next receive moves them).
func cmdSQSShared(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 || sourceProxy.seed == nil {
		ts.Fatalf("usage: dlqsource, then sqs-shared DLQ SOURCE...")
	}
	ctx := context.Background()
	s := sourceProxy.seed
	dlq, err := s.CreateQueue(ctx, args[0], nil)
	ts.Check(err)
	arn, err := s.Attribute(ctx, dlq, "QueueArn")
	ts.Check(err)
	policy := fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":1}`, arn)
	for _, src := range args[1:] {
		_, err := s.CreateQueue(ctx, src, map[string]string{"RedrivePolicy": policy, "VisibilityTimeout": "0"})
		ts.Check(err)
	}
}

// sqs-dead-letter SOURCE FILE [ATTR=VALUE...] sends each non-empty line
// of FILE to SOURCE through the proxy, with the given string message
// attributes, and receives them until SOURCE's redrive policy has moved
// every one to its DLQ (moto moves a message on the receive past
// maxReceiveCount).
func cmdSQSDeadLetter(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 || sourceProxy.seed == nil {
		ts.Fatalf("usage: dlqsource, then sqs-dead-letter SOURCE FILE [ATTR=VALUE...]")
	}
	var bodies []string
	for _, line := range strings.Split(ts.ReadFile(args[1]), "\n") {
		if strings.TrimSpace(line) != "" {
			bodies = append(bodies, line)
		}
	}
	attrs := map[string]string{}
	for _, a := range args[2:] {
		k, v, _ := strings.Cut(a, "=")
		attrs[k] = v
	}
	ctx := context.Background()
	s := sourceProxy.seed
	out, err := s.SQS.GetQueueUrl(ctx, getURL(args[0]))
	ts.Check(err)
	url := aws.ToString(out.QueueUrl)
	ts.Check(s.Send(ctx, url, bodies, attrs))
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := s.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 10}); err != nil {
			ts.Fatalf("receive from %s: %v", args[0], err)
		}
		v, f, err := s.Depth(ctx, url)
		ts.Check(err)
		if v == 0 && f == 0 {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s: %s still there after 30s (%d visible, %d in flight)", args[0], strconv.Itoa(v+f)+" messages", v, f)
		}
	}
}

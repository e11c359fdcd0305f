package sqsapi

import (
	"context"
	"crypto/md5"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// receiveBody is a ReceiveMessage answer of the SQS JSON protocol, with the
// body's true MD5 (the SDK validates it).
var receiveBody = fmt.Sprintf(`{"Messages":[{"MessageId":"m-1","ReceiptHandle":"rh-1","MD5OfBody":"%x","Body":"{\"version\":2}","Attributes":{"SentTimestamp":"1700000000000","ApproximateReceiveCount":"5"}}]}`,
	md5.Sum([]byte(`{"version":2}`)))

// brokenBody delivers the first half of its payload, then fails the way a
// connection closed under the decoder does.
type brokenBody struct {
	r      io.Reader
	fail   error
	closed bool
}

func (b *brokenBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if errors.Is(err, io.EOF) {
		return n, b.fail
	}
	return n, err
}
func (b *brokenBody) Close() error { b.closed = true; return nil }

// flakyTransport answers 200 to every call; the first answer's body breaks
// off halfway, as in aws-sdk-go-v2 issues 1825/2737/2935.
type flakyTransport struct {
	calls atomic.Int32
	fail  error // what the broken body's read returns; closed connection by default
}

func (t *flakyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	n := t.calls.Add(1)
	var body io.ReadCloser = io.NopCloser(strings.NewReader(receiveBody))
	if n == 1 {
		fail := t.fail
		if fail == nil {
			fail = &net.OpError{Op: "read", Net: "tcp", Err: net.ErrClosed}
		}
		body = &brokenBody{r: strings.NewReader(receiveBody[:len(receiveBody)/2]), fail: fail}
	}
	return &http.Response{
		StatusCode: 200, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": []string{"application/x-amz-json-1.0"}, "X-Amzn-Requestid": []string{"r"}},
		Body:    body,
		Request: req,
	}, nil
}

func testConfig(tr http.RoundTripper) aws.Config {
	return aws.Config{
		Region: "us-east-1",
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "a", SecretAccessKey: "b"}, nil
		}),
		HTTPClient:   &http.Client{Transport: tr},
		BaseEndpoint: aws.String("http://sqs.test"),
	}
}

func newTestClient(tr http.RoundTripper, optFns ...func(*sqs.Options)) *sqs.Client {
	return New(testConfig(tr), optFns...)
}

// TestReceiveSurvivesBodyClosedMidRead is the regression test for the SDK
// bug: a 200 whose body breaks off must be retried, not surface as a
// deserialization failure that strands the batch.
func TestReceiveSurvivesBodyClosedMidRead(t *testing.T) {
	tr := &flakyTransport{}
	c := newTestClient(tr)
	out, err := c.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String("http://sqs.test/1/q")})
	if err != nil {
		t.Fatalf("ReceiveMessage: %v", err)
	}
	if len(out.Messages) != 1 || aws.ToString(out.Messages[0].MessageId) != "m-1" {
		t.Fatalf("messages = %+v, want m-1", out.Messages)
	}
	if got := tr.calls.Load(); got != 2 {
		t.Errorf("HTTP calls = %d, want 2 (one broken, one retried)", got)
	}
}

// TestReceiveSurvivesTruncatedBody: a body cut short with an error the SDK
// does not classify as a connection error is still retried, because the
// whole-body read owns the retry decision; the plain SDK gives up.
func TestReceiveSurvivesTruncatedBody(t *testing.T) {
	tr := &flakyTransport{fail: io.ErrUnexpectedEOF}
	out, err := newTestClient(tr).ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String("http://sqs.test/1/q")})
	if err != nil || len(out.Messages) != 1 {
		t.Fatalf("ReceiveMessage = %v, %v; want one message after a retry", out, err)
	}
	if got := tr.calls.Load(); got != 2 {
		t.Errorf("HTTP calls = %d, want 2", got)
	}

	plainTr := &flakyTransport{fail: io.ErrUnexpectedEOF}
	plain := sqs.NewFromConfig(testConfig(plainTr))
	if _, err := plain.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String("http://sqs.test/1/q")}); err == nil {
		t.Fatalf("the plain SDK recovered from a truncated body; this test no longer shows the middleware's worth")
	}
}

// TestReadWholeBodyIsInnermost checks that the body is read into memory
// before the SDK's deserializer sees it: without the middleware the broken
// first body reaches the decoder.
func TestReadWholeBodyIsInnermost(t *testing.T) {
	tr := &flakyTransport{}
	plain := sqs.NewFromConfig(testConfig(tr), func(o *sqs.Options) { o.RetryMaxAttempts = 1 })
	_, err := plain.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String("http://sqs.test/1/q")})
	if err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("without the middleware and retries, err = %v; want the closed-connection failure", err)
	}

	tr2 := &flakyTransport{}
	withMW := newTestClient(tr2, func(o *sqs.Options) { o.RetryMaxAttempts = 1 })
	_, err = withMW.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String("http://sqs.test/1/q")})
	var bre *bodyReadError
	if !errors.As(err, &bre) {
		t.Fatalf("with the middleware, err = %v; want a retryable body read error", err)
	}
}

func TestNewKeepsIdleConnectionsForAMove(t *testing.T) {
	c := New(aws.Config{Region: "us-east-1"})
	bc, ok := c.Options().HTTPClient.(*awshttp.BuildableClient)
	if !ok {
		t.Fatalf("HTTP client %T, want the SDK's buildable client", c.Options().HTTPClient)
	}
	tr := bc.GetTransport()
	if tr.MaxIdleConnsPerHost < IdleConnsPerHost || tr.MaxIdleConns < IdleConnsPerHost {
		t.Fatalf("idle connections: %d per host, %d in all; want %d", tr.MaxIdleConnsPerHost, tr.MaxIdleConns, IdleConnsPerHost)
	}
	// A client built by the caller is not touched.
	own := &http.Client{}
	if got := New(aws.Config{Region: "us-east-1", HTTPClient: own}).Options().HTTPClient; got != own {
		t.Fatalf("caller's client replaced by %T", got)
	}
}

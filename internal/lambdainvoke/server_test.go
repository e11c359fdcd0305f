package lambdainvoke_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	ltypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/aws/smithy-go"

	"github.com/mfdlq/mfdlq/internal/lambdainvoke"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

func TestMain(m *testing.M) { os.Exit(localaws.Wrap(m).Run()) }

// setup starts the stand-in in front of moto with one function and returns
// a client of the stand-in and the function's name.
func setup(t *testing.T) (*lambdainvoke.Server, *lambda.Client, string) {
	t.Helper()
	cfg := localaws.Config(t)
	name := localaws.UniqueName("fn")
	_, err := localaws.CreateFunction(context.Background(), cfg, name, localaws.HandlerZip("None"))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := lambdainvoke.New(localaws.Endpoint(t), lambda.NewFromConfig(cfg))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	c := lambda.NewFromConfig(cfg, func(o *lambda.Options) {
		o.BaseEndpoint = aws.String(hs.URL)
		o.RetryMaxAttempts = 1
	})
	return srv, c, name
}

func invoke(c *lambda.Client, fn string, payload string) (*lambda.InvokeOutput, error) {
	return c.Invoke(context.Background(), &lambda.InvokeInput{FunctionName: aws.String(fn), InvocationType: ltypes.InvocationTypeEvent, Payload: []byte(payload)})
}

func code(err error) string {
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode()
	}
	return ""
}

func TestInvokeEvent(t *testing.T) {
	srv, c, name := setup(t)
	out, err := invoke(c, name, `{"order":1}`)
	if err != nil || out.StatusCode != 202 {
		t.Fatalf("invoke: %v %+v", err, out)
	}
	got := srv.Invocations()
	if len(got) != 1 || string(got[0].Payload) != `{"order":1}` || got[0].RequestID == "" {
		t.Fatalf("recorded %+v", got)
	}
	// The ARN works as a name; a missing function is 404; a non-JSON
	// payload is 400: none of them recorded.
	if _, err := invoke(c, got[0].Function, `{}`); err != nil {
		t.Fatalf("by ARN: %v", err)
	}
	if _, err := invoke(c, name+"-nope", `{}`); code(err) != "ResourceNotFoundException" {
		t.Fatalf("missing function: %v", err)
	}
	if _, err := invoke(c, name, `not json`); code(err) != "InvalidRequestContentException" {
		t.Fatalf("bad payload: %v", err)
	}
	if n := len(srv.Invocations()); n != 2 {
		t.Fatalf("%d recorded, want 2", n)
	}
}

// A backend that cannot be read is Lambda's trouble (500, retried), not a
// missing function (404, final).
func TestInvokeBackendDown(t *testing.T) {
	cfg := localaws.Config(t)
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	srv, err := lambdainvoke.New(down.URL, lambda.NewFromConfig(cfg, func(o *lambda.Options) {
		o.BaseEndpoint = aws.String(down.URL)
		o.RetryMaxAttempts = 1
	}))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	c := lambda.NewFromConfig(cfg, func(o *lambda.Options) {
		o.BaseEndpoint = aws.String(hs.URL)
		o.RetryMaxAttempts = 1
	})
	if _, err := invoke(c, "orders-consumer", `{}`); code(err) != "ServiceException" {
		t.Fatalf("backend down: %v, want ServiceException", err)
	}
}

func TestInvokeFaults(t *testing.T) {
	srv, c, name := setup(t)
	srv.Fault = func(n int) int {
		switch n {
		case 1:
			return 429
		case 2:
			return 500
		}
		return 0
	}
	if _, err := invoke(c, name, `{}`); code(err) != "TooManyRequestsException" {
		t.Fatalf("attempt 1: %v", err)
	}
	if _, err := invoke(c, name, `{}`); code(err) != "ServiceException" {
		t.Fatalf("attempt 2: %v", err)
	}
	if _, err := invoke(c, name, `{}`); err != nil {
		t.Fatalf("attempt 3: %v", err)
	}
	if len(srv.Invocations()) != 1 || srv.Attempts() != 3 {
		t.Fatalf("recorded %d of %d attempts", len(srv.Invocations()), srv.Attempts())
	}
}

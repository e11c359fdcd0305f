package cmd

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

// A destination in another account: the plan names both accounts and the
// question does too; "n" moves nothing. moto keeps one account per
// request, so a proxy answers GetQueueAttributes for the destination with
// an ARN in account 111111111111, as SQS answers for a queue shared from
// another account.
func TestRedriveCrossAccountNamesBothAndAsks(t *testing.T) {
	s := localaws.NewSeeder(localaws.Config(t))
	name, _, dlq, _ := seedOrders(t, s, "xacct", 5, nil)
	dest := name + "-elsewhere"
	if _, err := s.CreateQueue(context.Background(), dest, nil); err != nil {
		t.Fatal(err)
	}
	target, _ := url.Parse(localaws.Endpoint(t))
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ModifyResponse = func(r *http.Response) error {
		if r.Request.Header.Get("X-Amz-Target") != "AmazonSQS.GetQueueAttributes" {
			return nil
		}
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return err
		}
		b = bytes.ReplaceAll(b, []byte(":123456789012:"+dest+`"`), []byte(":111111111111:"+dest+`"`))
		r.Body = io.NopCloser(bytes.NewReader(b))
		r.ContentLength = int64(len(b))
		r.Header.Set("Content-Length", strconv.Itoa(len(b)))
		return nil
	}
	srv := httptest.NewServer(proxy)
	defer srv.Close()
	var stdout, stderr strings.Builder
	d := cmdutil.NewDeps(&cmdutil.IOStreams{In: strings.NewReader("n\n"), InTTY: true, Out: &stdout, ErrOut: &stderr}, nil)
	code := run(context.Background(), d, []string{"redrive", "--queue", name + "-dlq", "--to", dest, "--rate", "max", "--canary", "0",
		"--endpoint-url", srv.URL, "--incident", t.TempDir()})
	t.Logf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	if code != cmdutil.ExitCheckFailed {
		t.Fatalf("exit %d, want %d after a no", code, cmdutil.ExitCheckFailed)
	}
	for _, want := range []string{
		"plan: " + dest + " is in account 111111111111, the DLQ " + name + "-dlq in account 123456789012: the messages leave the DLQ's account",
		"Move up to 5 messages from " + name + "-dlq in account 123456789012 to " + dest + " in account 111111111111, another account? [y/N]",
		"nothing changed: not confirmed",
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q", want)
		}
	}
	if v, f, err := s.Depth(context.Background(), dlq); err != nil || v != 5 || f != 0 {
		t.Fatalf("DLQ holds %d visible, %d in flight (%v): want all 5, nothing moved", v, f, err)
	}
}

package cmd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

// A replay whose lines record a source in another account (999999999999,
// listed after this account's: the question must not ask about the first only)
// beside this one's: without --allow-account it is refused, naming the
// account, and nothing is sent; with it the plan names each destination's
// account and region, the question names both accounts, and the lines go.
// moto keeps one account per request and ignores GetQueueUrl's owner, so a
// proxy answers GetQueueAttributes for the other queue with its ARN in
// account 999999999999, as SQS answers for a queue shared from another
// account; the messages land in moto's queue of that name.
func TestRedriveFileOtherAccountNeedsAllow(t *testing.T) {
	s := localaws.NewSeeder(localaws.Config(t))
	ctx := context.Background()
	mine, theirs := localaws.UniqueName("xfa"), localaws.UniqueName("xfb")
	mineURL, err := s.CreateQueue(ctx, mine, nil)
	if err != nil {
		t.Fatal(err)
	}
	theirsURL, err := s.CreateQueue(ctx, theirs, nil)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "mixed.jsonl")
	var lines []string
	for i, src := range []string{"123456789012:" + mine, "999999999999:" + theirs, "999999999999:" + theirs} {
		lines = append(lines, fmt.Sprintf(`{"MessageId":"m%d","Body":"b%d","Attributes":{"DeadLetterQueueSourceArn":"arn:aws:sqs:us-east-1:%s"}}`, i, i, src))
	}
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
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
		b = bytes.ReplaceAll(b, []byte(":123456789012:"+theirs+`"`), []byte(":999999999999:"+theirs+`"`))
		r.Body = io.NopCloser(bytes.NewReader(b))
		r.ContentLength = int64(len(b))
		r.Header.Set("Content-Length", strconv.Itoa(len(b)))
		return nil
	}
	srv := httptest.NewServer(proxy)
	defer srv.Close()
	replay := func(in string, extra ...string) (int, string) {
		var stdout, stderr strings.Builder
		d := cmdutil.NewDeps(&cmdutil.IOStreams{In: strings.NewReader(in), InTTY: true, Out: &stdout, ErrOut: &stderr}, nil)
		args := append([]string{"redrive", "--from-file", file, "--rate", "max", "--canary", "0", "--endpoint-url", srv.URL, "--incident", t.TempDir()}, extra...)
		code := run(ctx, d, args)
		t.Logf("exit %d\n%s%s", code, stdout.String(), stderr.String())
		return code, stderr.String()
	}
	depths := func(want int) {
		t.Helper()
		for _, u := range []string{mineURL, theirsURL} {
			if v, f, err := s.Depth(ctx, u); err != nil || v+f != want*(1+strings.Count(u, theirs)) {
				t.Errorf("%s holds %d+%d (%v)", u, v, f, err)
			}
		}
	}

	code, errOut := replay("", "--yes")
	if code != cmdutil.ExitCheckFailed {
		t.Fatalf("exit %d without --allow-account, want %d", code, cmdutil.ExitCheckFailed)
	}
	if want := "sends to " + theirs + " in account 999999999999, outside your account 123456789012: nothing was sent; if that is right pass --allow-account 999999999999"; !strings.Contains(errOut, want) {
		t.Errorf("stderr lacks %q", want)
	}
	depths(0)

	// Allowed, the question still names both accounts; "n" sends nothing.
	code, errOut = replay("n\n", "--allow-account", "222222222222,999999999999")
	if code != cmdutil.ExitCheckFailed {
		t.Fatalf("exit %d after a no, want %d", code, cmdutil.ExitCheckFailed)
	}
	for _, want := range []string{
		"redriving: account 123456789012 · region us-east-1 · queue mixed",
		"destination: account 123456789012 · region us-east-1 · queue " + mine + " (1 line)",
		"destination: account 999999999999 · region us-east-1 · queue " + theirs + " (2 lines)",
		"another account? [y/N]",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q", want)
		}
	}
	depths(0)

	code, _ = replay("", "--allow-account", "999999999999", "--yes")
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d with --allow-account --yes, want 0", code)
	}
	depths(1)
}

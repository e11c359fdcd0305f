package cmd

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

// TestDryRunScanCutByCtrlC: Ctrl-C during a dry run's scan (--transform,
// --dedupe) is an interruption — exit 130, "scanned N of M before
// Ctrl-C" — never "the whole selection … nothing changed", exit 0, and a
// message the program was running on when it came is no program failure
// (issue 48). The run's context is cancelled, as Ctrl-C cancels Main's,
// once the scan's second receive has answered: a proxy in front of the
// local SQS counts them, so no wall clock decides where the cut falls.
func TestDryRunScanCutByCtrlC(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"transform", []string{"--transform", `.version = 1`}},
		{"dedupe", []string{"--dedupe", "--key", ".order_id"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := localaws.NewSeeder(localaws.Config(t))
			name, _, _, _ := seedOrders(t, s, "cut", 60, nil)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			target, _ := url.Parse(localaws.Endpoint(t))
			proxy := httputil.NewSingleHostReverseProxy(target)
			var receives atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(body))
				proxy.ServeHTTP(w, r)
				// The scan reads as an export does, hiding what it holds
				// for 300 s (the plan's peeks hide for a few seconds): 60
				// messages take six receives or more, and the cut comes
				// once the second has answered.
				if r.Header.Get("X-Amz-Target") == "AmazonSQS.ReceiveMessage" && bytes.Contains(body, []byte(`"VisibilityTimeout":300`)) &&
					receives.Add(1) == 2 {
					cancel()
				}
			}))
			defer srv.Close()
			var stdout, stderr strings.Builder
			d := cmdutil.NewDeps(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}, nil)
			args := append([]string{"redrive", "--queue", name + "-dlq", "--rate", "max", "--dry-run", "--workers", "1",
				"--endpoint-url", srv.URL, "--incident", t.TempDir()}, tc.args...)
			code := run(ctx, d, args)
			t.Logf("exit %d\n%s%s", code, stdout.String(), stderr.String())
			if code != cmdutil.ExitInterrupted {
				t.Errorf("exit %d, want %d", code, cmdutil.ExitInterrupted)
			}
			out := stderr.String()
			if strings.Contains(out, "the whole selection") || strings.Contains(out, "dry run: nothing changed") {
				t.Error("an interrupted scan reads as the whole selection")
			}
			if strings.Contains(out, "context canceled") || regexp.MustCompile(`[1-9][0-9]* failed`).MatchString(out) {
				t.Error("interrupted messages counted as program failures")
			}
			m := regexp.MustCompile(`scanned (\d+) of 60 before Ctrl-C`).FindStringSubmatch(out)
			if m == nil || m[1] == "60" {
				t.Fatalf("no \"scanned N of 60 before Ctrl-C\" with N < 60")
			}
		})
	}
}

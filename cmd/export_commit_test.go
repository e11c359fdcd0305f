package cmd

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

// A colleague's export lands on the same --out name while this one reads
// (made certain by a proxy that creates the file as the first checkpoint's
// DeleteMessageBatch goes by, at an in-flight limit of 10): the final link
// fails after 20 messages were deleted. The export exits 1 naming the file
// that holds them — it exists, holds exactly those 20 — the other 5 are
// visible in the DLQ at once, their file is untouched, and the incident's
// export event names the kept file. The old code removed it.
func TestExportDeleteNameTakenKeepsDeleted(t *testing.T) {
	ctx := context.Background()
	t.Setenv("MFDLQ_INFLIGHT_LIMIT", "10")
	cfg := localaws.Config(t)
	s := localaws.NewSeeder(cfg)
	name, _, dlq, _ := seedOrders(t, s, "taken", 25, nil)
	dir := t.TempDir()
	out := filepath.Join(dir, name+".jsonl.gz")
	target, _ := url.Parse(localaws.Endpoint(t))
	proxy := httputil.NewSingleHostReverseProxy(target)
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Amz-Target") == "AmazonSQS.DeleteMessageBatch" {
			once.Do(func() {
				if err := os.WriteFile(out, []byte("theirs"), 0o600); err != nil {
					t.Error(err)
				}
			})
		}
		proxy.ServeHTTP(w, r)
	}))
	defer srv.Close()
	var stdout, stderr strings.Builder
	inc := t.TempDir()
	d := cmdutil.NewDeps(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}, nil)
	code := run(ctx, d, []string{"export", "--queue", name + "-dlq", "--out", out, "--delete", "--yes",
		"--endpoint-url", srv.URL, "--incident", inc})
	t.Logf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	kept := filepath.Join(dir, name+".kept-1.jsonl.gz")
	if code != cmdutil.ExitUnexpected || !strings.Contains(stderr.String(), "the 20 messages deleted so far are in "+kept) {
		t.Fatalf("exit %d; want %d and stderr naming %s with its 20", code, cmdutil.ExitUnexpected, kept)
	}
	if b, _ := os.ReadFile(out); string(b) != "theirs" {
		t.Fatalf("their file was changed: %q", b)
	}
	if n := gzLines(t, kept); n != 20 {
		t.Fatalf("%s holds %d messages, want the 20 deleted", kept, n)
	}
	if v, f, err := s.Depth(ctx, dlq); err != nil || v != 5 || f != 0 {
		t.Fatalf("DLQ holds %d visible, %d in flight (%v); want the 5 not deleted, all visible", v, f, err)
	}
	evs, err := (&incident.Workspace{Dir: inc}).Events()
	if err != nil || len(evs) == 0 || !strings.Contains(string(mustJSON(t, evs[len(evs)-1])), `"location":"`+kept+`","exported":20,"deleted":20`) {
		t.Fatalf("incident events %v (%v): want the export naming %s with 20", evs, err, kept)
	}
}

func gzLines(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for sc := bufio.NewScanner(gz); sc.Scan(); n++ {
	}
	return n
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

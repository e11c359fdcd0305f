package incidents3

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

func testPrefix(t *testing.T) (*s3.Client, Prefix) {
	t.Helper()
	c := s3.NewFromConfig(localaws.Config(t), func(o *s3.Options) { o.UsePathStyle = true })
	b := strings.ToLower(localaws.UniqueName("inc"))
	if _, err := c.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(b)}); err != nil {
		t.Fatal(err)
	}
	return c, Prefix{Bucket: b, Path: "team/incidents/"}
}

func objectText(t *testing.T, c API, bucket, key string) string {
	t.Helper()
	o, err := get(context.Background(), c, bucket, key, MaxObjectBytes)
	if err != nil {
		t.Fatalf("read %s: %v", key, err)
	}
	return string(o.data)
}

func appendEvent(t *testing.T, ws *incident.Workspace, step, verdict string) {
	t.Helper()
	if err := ws.Append(incident.Event{Step: step, Time: time.Date(2026, 12, 7, 3, 0, 0, 0, time.UTC), Queue: "orders-dlq", Verdict: verdict}); err != nil {
		t.Fatal(err)
	}
}

// Two working copies of one incident (a Lambda's, a laptop's) each append
// events and push: S3 ends with every event of both, in the order the
// writes landed, and the second copy's file holds the first one's too. An
// artifact both changed is a conflict: the first write stays in S3, the
// second copy's file stays local, and nothing is overwritten.
func TestTwoWritersNeverOverwrite(t *testing.T) {
	c, p := testPrefix(t)
	ctx := context.Background()
	loc := p.Incident("orders-dlq-20261207T0300Z")
	a, _, err := Open(ctx, c, loc, filepath.Join(t.TempDir(), "a"))
	if err != nil {
		t.Fatal(err)
	}
	appendEvent(t, a.WS, "triage", "poison")
	if _, err := a.Push(ctx); err != nil {
		t.Fatal(err)
	}
	b, _, err := Open(ctx, c, loc, filepath.Join(t.TempDir(), "b"))
	if err != nil {
		t.Fatal(err)
	}
	// Both append after the same pull.
	appendEvent(t, a.WS, "classify", "poison")
	appendEvent(t, b.WS, "logs", "found")
	if err := a.WS.WriteFile(incident.ClassificationFile, []byte(`{"by":"a"}`)); err != nil {
		t.Fatal(err)
	}
	if err := b.WS.WriteFile(incident.ClassificationFile, []byte(`{"by":"b"}`)); err != nil {
		t.Fatal(err)
	}
	if res, err := a.Push(ctx); err != nil || res.NewEvents != 1 {
		t.Fatalf("a's push: %+v %v", res, err)
	}
	res, err := b.Push(ctx)
	var conflict *ConflictError
	if !errors.As(err, &conflict) || len(conflict.Names) != 1 || !strings.HasPrefix(conflict.Names[0], incident.ClassificationFile+" (yours is classification.json.conflict-") {
		t.Fatalf("b's push: want a conflict on classification.json, got %v", err)
	}
	if res.NewEvents != 1 {
		t.Fatalf("b's push wrote %d new events, want 1 (the conflict must not stop the events)", res.NewEvents)
	}
	events := objectText(t, c, p.Bucket, loc.key(incident.EventsFile))
	var steps []string
	for _, l := range strings.Split(strings.TrimSpace(events), "\n") {
		var ev incident.Event
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		steps = append(steps, ev.Step)
	}
	if got := strings.Join(steps, ","); got != "triage,classify,logs" {
		t.Fatalf("events in S3: %s, want triage,classify,logs", got)
	}
	local, err := b.WS.Events()
	if err != nil || len(local) != 3 {
		t.Fatalf("b's local events: %d %v, want the 3 S3 holds", len(local), err)
	}
	if got := objectText(t, c, p.Bucket, loc.key(incident.ClassificationFile)); got != `{"by":"a"}` {
		t.Fatalf("classification.json in S3: %s, want a's (the first write)", got)
	}
	// b's is set aside, pushed beside S3's at the next open, and S3's is
	// pulled: both kept, and b's copy moves on.
	b, _, err = Open(ctx, c, loc, b.WS.Dir)
	if err != nil {
		t.Fatalf("reopening after a conflict: %v", err)
	}
	if got, _ := b.WS.ReadFile(incident.ClassificationFile); string(got) != `{"by":"a"}` {
		t.Fatalf("b's classification.json after reopening: %s, want S3's (a's)", got)
	}
	names, _ := b.localNames()
	var aside string
	for _, n := range names {
		if strings.HasPrefix(n, incident.ClassificationFile+".conflict-") {
			aside = n
		}
	}
	if aside == "" || objectText(t, c, p.Bucket, loc.key(aside)) != `{"by":"b"}` {
		t.Fatalf("b's own classification is not kept beside S3's: %v", names)
	}
}

// Several copies push their events at the same moment: every one of them
// lands (the merge retries on each lost condition).
func TestConcurrentAppendsAllLand(t *testing.T) {
	c, p := testPrefix(t)
	ctx := context.Background()
	loc := p.Incident("orders-dlq-20261207T0301Z")
	const writers = 5
	copies := make([]*Copy, writers)
	for i := range copies {
		cp, _, err := Open(ctx, c, loc, filepath.Join(t.TempDir(), "w"))
		if err != nil {
			t.Fatal(err)
		}
		appendEvent(t, cp.WS, "step"+string(rune('a'+i)), "")
		copies[i] = cp
	}
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i, cp := range copies {
		wg.Add(1)
		go func() { defer wg.Done(); _, errs[i] = cp.Push(ctx) }()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	events := objectText(t, c, p.Bucket, loc.key(incident.EventsFile))
	for i := range writers {
		if !strings.Contains(events, `"step":"step`+string(rune('a'+i))+`"`) {
			t.Fatalf("writer %d's event is lost; S3 holds:\n%s", i, events)
		}
	}
	if n := strings.Count(events, "\n"); n != writers {
		t.Fatalf("S3 holds %d lines, want %d:\n%s", n, writers, events)
	}
}

// A pull keeps the local rules (0700 directory, 0600 files) and leaves in
// S3 what is not a plain file name or is too large to read.
func TestPullModesAndHostileNames(t *testing.T) {
	c, p := testPrefix(t)
	ctx := context.Background()
	loc := p.Incident("orders-dlq-20261207T0302Z")
	for key, body := range map[string]string{
		loc.key(incident.EventsFile):  `{"step":"triage","queue":"orders-dlq"}` + "\n",
		loc.key(".hidden"):            "x",
		loc.key("sub/../../escape"):   "x",
		loc.key(incident.ContainFile): `{}`,
	} {
		if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(p.Bucket), Key: aws.String(key), Body: strings.NewReader(body)}); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(t.TempDir(), "copy")
	cp, skipped, err := Open(ctx, c, loc, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(skipped) != 2 {
		t.Fatalf("skipped %v, want the hidden and the path-like names", skipped)
	}
	st, err := os.Stat(dir)
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("working copy dir mode %v %v, want 0700", st.Mode().Perm(), err)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		info, _ := e.Info()
		if info.Mode().Perm() != 0o600 {
			t.Fatalf("%s mode %v, want 0600", e.Name(), info.Mode().Perm())
		}
		names = append(names, e.Name())
	}
	if got := strings.Join(names, ","); got != ".s3-incident.json,contain.json,events.jsonl" {
		t.Fatalf("working copy holds %s", got)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "escape")); err == nil {
		t.Fatal("a key with .. wrote outside the working copy")
	}
	if evs, _ := cp.WS.Events(); len(evs) != 1 {
		t.Fatalf("events %v", evs)
	}
}

// A symlink where the working copy goes is refused, as a local incident
// directory is.
func TestWorkingCopyIsNeverASymlink(t *testing.T) {
	c, p := testPrefix(t)
	root := t.TempDir()
	if err := os.Symlink(t.TempDir(), filepath.Join(root, "copy")); err != nil {
		t.Fatal(err)
	}
	_, _, err := Open(context.Background(), c, p.Incident("x-1"), filepath.Join(root, "copy"))
	var unsafe *incident.UnsafeDirError
	if !errors.As(err, &unsafe) {
		t.Fatalf("want an UnsafeDirError, got %v", err)
	}
}

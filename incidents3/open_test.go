package incidents3

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mfdlq/mfdlq/incident"
)

// Runs that look for a DLQ's open incident at the same moment agree on
// one; once record closes it, the next run names a new one.
func TestOpenOfAgreesAndRenewsAfterRecord(t *testing.T) {
	c, p := testPrefix(t)
	ctx := context.Background()
	now := time.Date(2026, 12, 7, 3, 4, 0, 0, time.UTC)
	const runs = 4
	locs := make([]Location, runs)
	errs := make([]error, runs)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			locs[i], _, errs[i] = OpenOf(ctx, c, p, "123456789012", "us-east-1", "orders-dlq", now)
		}()
	}
	wg.Wait()
	for i := range runs {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if locs[i] != locs[0] {
			t.Fatalf("run %d opened %s, run 0 %s", i, locs[i], locs[0])
		}
	}
	if locs[0].ID != "orders-dlq-20261207T0304Z" {
		t.Fatalf("ID %s", locs[0].ID)
	}
	cp, _, err := Open(ctx, c, locs[0], filepath.Join(t.TempDir(), "c"))
	if err != nil {
		t.Fatal(err)
	}
	if err := cp.WS.Append(incident.Event{Step: incident.StepRecord, Time: now}); err != nil {
		t.Fatal(err)
	}
	if _, err := cp.Push(ctx); err != nil {
		t.Fatal(err)
	}
	next, created, err := OpenOf(ctx, c, p, "123456789012", "us-east-1", "orders-dlq", now)
	if err != nil || !created || next.ID != "orders-dlq-20261207T0304Z-2" {
		t.Fatalf("after record: %s created=%v %v, want a new orders-dlq-20261207T0304Z-2", next, created, err)
	}
}

// An episode is claimed once: a second delivery of the same event (or a
// second Lambda on it) is told it is taken; another state time is another
// episode.
func TestEpisodeClaimedOnce(t *testing.T) {
	c, p := testPrefix(t)
	ctx := context.Background()
	e := Episode{AlarmARN: "arn:aws:cloudwatch:us-east-1:123456789012:alarm:orders-dlq-depth", StateTime: "2026-12-07T03:00:00.000+0000", Queue: "orders-dlq"}
	if ok, err := e.Claim(ctx, c, p); !ok || err != nil {
		t.Fatalf("first claim: %v %v", ok, err)
	}
	if ok, err := e.Claim(ctx, c, p); ok || err != nil {
		t.Fatalf("second claim: %v %v, want refused", ok, err)
	}
	e.StateTime = "2026-12-07T03:10:00.000+0000"
	if ok, err := e.Claim(ctx, c, p); !ok || err != nil {
		t.Fatalf("the next episode: %v %v", ok, err)
	}
}

// List shows the incidents under a prefix, not the pointers, episodes or
// triage claims.
func TestListIncidents(t *testing.T) {
	c, p := testPrefix(t)
	ctx := context.Background()
	now := time.Date(2026, 12, 7, 3, 5, 0, 0, time.UTC)
	loc, _, err := OpenOf(ctx, c, p, "123456789012", "us-east-1", "orders-dlq", now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (Episode{AlarmARN: "a", StateTime: "t"}).Claim(ctx, c, p); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ClaimTriage(ctx, c, loc, now, time.Minute); err != nil {
		t.Fatal(err)
	}
	cp, _, err := Open(ctx, c, loc, filepath.Join(t.TempDir(), "c"))
	if err != nil {
		t.Fatal(err)
	}
	if err := cp.WS.Append(incident.Event{Step: "triage", Time: now, Queue: "orders-dlq", Verdict: "poison"}); err != nil {
		t.Fatal(err)
	}
	if _, err := cp.Push(ctx); err != nil {
		t.Fatal(err)
	}
	got, truncated, err := List(ctx, c, p)
	if err != nil || truncated || len(got) != 1 {
		t.Fatalf("list: %+v %v %v", got, truncated, err)
	}
	if s := got[0]; s.URL != loc.String() || s.Queue != "orders-dlq" || s.LastStep != "triage" || s.Verdict != "poison" || s.Closed {
		t.Fatalf("summary %+v", s)
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{in: "s3://team-bucket/incidents/orders-dlq-20261207T0300Z", want: "s3://team-bucket/incidents/orders-dlq-20261207T0300Z"},
		{in: "s3://team-bucket/orders-dlq-20261207T0300Z/", want: "s3://team-bucket/orders-dlq-20261207T0300Z"},
		{in: "s3://team-bucket/", err: "give s3://bucket/prefix/ID"},
		{in: "s3://Team/x", err: "not a bucket name"},
		{in: "s3://team-bucket/a/../x", err: `the prefix holds ".."`},
		{in: "s3://team-bucket/a/.hidden", err: "not an incident's name"},
	} {
		loc, err := Parse(tc.in)
		switch {
		case tc.err != "" && (err == nil || !contains(err.Error(), tc.err)):
			t.Errorf("Parse(%q): %v, want an error with %q", tc.in, err, tc.err)
		case tc.err == "" && (err != nil || loc.String() != tc.want):
			t.Errorf("Parse(%q) = %s, %v, want %s", tc.in, loc, err, tc.want)
		}
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// Two alarms on one DLQ firing at once (its "not empty" and its "growing"
// alarm) are two episodes of one incident: of runs that claim its triage
// at the same moment exactly one wins; within the cooldown the claim stays
// taken, after it the next run takes it again, and another incident has a
// claim of its own.
func TestClaimTriageOnePerCooldown(t *testing.T) {
	c, p := testPrefix(t)
	ctx := context.Background()
	loc := p.Incident("orders-dlq-20261207T0300Z")
	now := time.Date(2026, 12, 7, 3, 0, 6, 0, time.UTC)
	const runs = 4
	won := make([]bool, runs)
	errs := make([]error, runs)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			won[i], _, errs[i] = ClaimTriage(ctx, c, loc, now, 30*time.Minute)
		}()
	}
	wg.Wait()
	n := 0
	for i := range runs {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if won[i] {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d of %d runs claimed the triage, want 1", n, runs)
	}
	ok, since, err := ClaimTriage(ctx, c, loc, now.Add(10*time.Minute), 30*time.Minute)
	if ok || err != nil || !since.Equal(now) {
		t.Fatalf("within the cooldown: %v %v %v, want taken since %v", ok, since, err, now)
	}
	if ok, _, err := ClaimTriage(ctx, c, loc, now.Add(31*time.Minute), 30*time.Minute); !ok || err != nil {
		t.Fatalf("after the cooldown: %v %v, want claimed", ok, err)
	}
	if ok, _, err := ClaimTriage(ctx, c, p.Incident("orders-dlq-20261207T0310Z"), now.Add(32*time.Minute), 30*time.Minute); !ok || err != nil {
		t.Fatalf("another incident: %v %v, want claimed", ok, err)
	}
}

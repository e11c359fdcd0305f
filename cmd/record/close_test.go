package record

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/mfdlq/mfdlq/cmd/cmdtest"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

// TestRecordClosesOnlyAnEmptyDLQ: record leaves open an incident whose
// DLQ still holds messages (a redrive declined), closes it when the DLQ is
// empty or gone, or with --close (then without an AWS call), and keeps it
// open when the depth cannot be read — the safe side.
func TestRecordClosesOnlyAnEmptyDLQ(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	seed := localaws.NewSeeder(localaws.Config(t))
	full := localaws.UniqueName("rclose-full")
	_, fullURL, err := seed.CreatePair(ctx, localaws.UniqueName("rclose"), full, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := seed.Send(ctx, fullURL, []string{`{"order":1}`, `{"order":2}`}, nil); err != nil {
		t.Fatal(err)
	}
	empty := localaws.UniqueName("rclose-empty")
	emptyURL, err := seed.CreateQueue(ctx, empty, nil)
	if err != nil {
		t.Fatal(err)
	}
	unreachable := "http://127.0.0.1:1/123456789012/" + localaws.UniqueName("rclose-far")
	goneLocal := strings.Replace(emptyURL, empty, localaws.UniqueName("rclose-gone"), 1)

	tests := []struct {
		name      string
		queue     string
		url       string
		close     bool
		noAWS     bool
		wantOpen  bool
		wantSaid  string
		wantClean bool // nothing said but the incident line
	}{
		{"the DLQ holds messages", full, fullURL, false, false, true, "the incident stays open: " + full + " still holds 2 messages; `mfdlq record --close` closes it", false},
		{"--close", full, fullURL, true, true, false, "", true},
		{"the DLQ is empty", empty, emptyURL, false, false, false, "", true},
		{"the DLQ is gone", "gone-dlq", goneLocal, false, false, false, "gone-dlq no longer exists: the incident is closed", false},
		{"the depth cannot be read", "far-dlq", unreachable, false, true, true, "the incident stays open: the depth of far-dlq cannot be read", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, _, errOut := cmdtest.Deps(t, false)
			d.AWS = func(context.Context) (aws.Config, error) { return localaws.Config(t), nil }
			if tc.noAWS {
				d.AWS = func(context.Context) (aws.Config, error) { return aws.Config{}, errors.New("no AWS in this test") }
			}
			d.WireClients()
			ws, err := incident.Open(filepath.Join(d.Global.Incident, "inc"))
			if err != nil {
				t.Fatal(err)
			}
			d.Global.Incident = ws.Dir
			if err := ws.Append(incident.Event{Step: incident.StepClassify, Queue: tc.queue, QueueURL: tc.url, Verdict: "poison"}); err != nil {
				t.Fatal(err)
			}
			o := &RecordOptions{deps: d, Cause: "c", Change: "c", Warning: "w", Close: tc.close}
			if err := runRecord(ctx, o); err != nil {
				t.Fatal(err)
			}
			ev, _, _ := ws.Latest(incident.StepRecord)
			want := incident.RecordClosed
			if tc.wantOpen {
				want = incident.RecordOpen
			}
			if ev.Verdict != want {
				t.Errorf("record event's verdict %q, want %q", ev.Verdict, want)
			}
			if f := (incident.Found{Last: ev}); f.Closed() == tc.wantOpen {
				t.Errorf("Closed() = %v after this record", f.Closed())
			}
			said := errOut.String()
			if tc.wantSaid != "" && !strings.Contains(said, tc.wantSaid) {
				t.Errorf("stderr:\n%s\nwant %q", said, tc.wantSaid)
			}
			if tc.wantClean && said != "incident: "+ws.Dir+" (--incident)\n" {
				t.Errorf("stderr:\n%s\nwant only the incident line", said)
			}
		})
	}
}

// TestRecordKeepsTheLambdasIncidentOpen: the Lambda's incident begins
// with its alarm event, which names the queue, account and region but no
// URL; the DLQ's depth is read from the first event that has one (triage's
// own), so record leaves the incident open while the DLQ holds messages —
// and the Lambda's next alarm joins it (incidents3.OpenOf).
func TestRecordKeepsTheLambdasIncidentOpen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	seed := localaws.NewSeeder(localaws.Config(t))
	name := localaws.UniqueName("rclose-lam")
	_, dlqURL, err := seed.CreatePair(ctx, name, name+"-dlq", 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := seed.Send(ctx, dlqURL, []string{`{"order":1}`}, nil); err != nil {
		t.Fatal(err)
	}
	d, _, errOut := cmdtest.Deps(t, false)
	d.AWS = func(context.Context) (aws.Config, error) { return localaws.Config(t), nil }
	d.WireClients()
	ws, err := incident.Open(filepath.Join(d.Global.Incident, "inc"))
	if err != nil {
		t.Fatal(err)
	}
	d.Global.Incident = ws.Dir
	for _, ev := range []incident.Event{
		{Step: "alarm", Queue: name + "-dlq", Account: "123456789012", Region: "us-east-1", Verdict: "ALARM"},
		{Step: "triage", Queue: name + "-dlq", QueueURL: dlqURL, Account: "123456789012", Region: "us-east-1", Verdict: "poison"},
	} {
		if err := ws.Append(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := runRecord(ctx, &RecordOptions{deps: d, Cause: "c", Change: "c", Warning: "w"}); err != nil {
		t.Fatal(err)
	}
	if ev, _, _ := ws.Latest(incident.StepRecord); ev.Verdict != incident.RecordOpen {
		t.Fatalf("record's verdict %q, want %q: the DLQ holds a message\n%s", ev.Verdict, incident.RecordOpen, errOut)
	}
}

package triage

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/lambdaapi"
	"github.com/mfdlq/mfdlq/sqsapi"
)

func TestMain(m *testing.M) { os.Exit(localaws.Wrap(m).Run()) }

// TestRunWithSQSOnly triages a seeded DLQ against the local AWS with only
// an SQS client, as a Lambda denied everything else would: the answer
// still comes, the parts without a client are named as skipped, every
// artifact and event is in the incident, and the DLQ keeps every message,
// none left in flight once the peek's 5 s have passed.
func TestRunWithSQSOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := localaws.Config(t)
	seed := localaws.NewSeeder(cfg)
	name := localaws.UniqueName("triage")
	_, dlqURL, err := seed.CreatePair(ctx, name, name+"-dlq", 3)
	if err != nil {
		t.Fatal(err)
	}
	bodies := []string{`{"order_id":"o-1","version":2}`, `{"order_id":"o-2","version":2}`, "not json\x1b[2J"}
	if err := seed.Send(ctx, dlqURL, bodies, nil); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir() + "/inc"
	deps := Deps{SQS: sqsapi.New(cfg), Now: func() time.Time { return time.Now().UTC() },
		Workspace: func(string) (*incident.Workspace, error) { return incident.Open(dir) }}
	res, err := Run(ctx, deps, Request{Queue: dlqURL, Sample: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.Messages != 3 || res.Sampled != 3 || res.Alive {
		t.Errorf("messages %d, sampled %d, alive %v; want 3, 3, false", res.Messages, res.Sampled, res.Alive)
	}
	if n := groupCount(res); n != 3 {
		t.Errorf("groups hold %d messages, want 3: %+v", n, res.Groups)
	}
	var skipped []string
	for _, s := range res.Skipped {
		skipped = append(skipped, s.Step)
	}
	if got := strings.Join(skipped, ","); got != "logs,changes" {
		t.Errorf("skipped %q, want logs,changes", got)
	}
	if res.Next == "" || res.Incident != dir {
		t.Errorf("next %q, incident %q", res.Next, res.Incident)
	}
	ws, _ := incident.Existing(dir)
	events, err := ws.Events()
	if err != nil {
		t.Fatal(err)
	}
	var steps []string
	for _, ev := range events {
		steps = append(steps, ev.Step+":"+ev.Artifact)
	}
	if got, want := strings.Join(steps, " "), "contain:contain.json classify:classification.json triage:triage.json"; got != want {
		t.Errorf("events %q, want %q", got, want)
	}
	for _, f := range []string{incident.SamplesFile, File} {
		if !ws.Has(f) {
			t.Errorf("no %s in the incident", f)
		}
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		v, f, err := seed.Depth(ctx, dlqURL)
		if err != nil {
			t.Fatal(err)
		}
		if v == 3 && f == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the DLQ shows %d visible, %d in flight; want 3, 0", v, f)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func groupCount(res Result) int {
	n := 0
	for _, g := range res.Groups {
		n += g.Count
	}
	return n
}

func TestRequestValidate(t *testing.T) {
	tests := []struct {
		req     Request
		wantErr string
	}{
		{Request{Queue: "q"}, ""},
		{Request{}, "--queue is required: the DLQ's name, URL or ARN"},
		{Request{Queue: "q", Window: time.Minute}, "--window must be between 5m and 336h, got 1m0s"},
		{Request{Queue: "q", Peek: MaxPeek + 1}, "--peek must be between 1 and 1000, got 1001"},
		{Request{Queue: "q", LogGroups: make([]string, MaxLogGroups+1)}, "at most 10 --log-group, got 11"},
		{Request{Queue: "q", LogGroups: []string{" "}}, "--log-group is empty: name a log group such as /aws/lambda/orders"},
	}
	for _, tc := range tests {
		err := tc.req.WithDefaults().Validate()
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.wantErr {
			t.Errorf("%+v: error %q, want %q", tc.req, got, tc.wantErr)
		}
	}
}

// TestNext: the one thing to do next, by what the parts found.
func TestNext(t *testing.T) {
	chained := &sqsapi.Queue{Name: "d", RedrivePolicy: &sqsapi.RedrivePolicy{MaxReceiveCount: 3, DeadLetterTargetArn: "arn:aws:sqs:us-east-1:1:d2"}}
	plain := &sqsapi.Queue{Name: "d"}
	enabled := []lambdaapi.Mapping{{UUID: "u", Function: "f", State: "Enabled"}}
	poison := &classify.Classification{Verdict: classify.VerdictPoison, Groups: []classify.Group{{ID: "g1", Verdict: classify.VerdictPoison, Count: 2, Action: "fix the consumer, then redrive"}}}
	unknown := &classify.Classification{Verdict: classify.VerdictUnknown, Groups: []classify.Group{{ID: "g1", Verdict: classify.VerdictUnknown, Count: 2}}}
	tests := []struct {
		name     string
		q        *sqsapi.Queue
		alive    bool
		mappings []lambdaapi.Mapping
		classed  *classify.Classification
		messages int64
		logs     *LogsFound
		want     string
	}{
		{"alive with a mapping", plain, true, enabled, poison, 2, nil, "mfdlq contain --queue d --pause-mapping (still failing: stop the bleeding first)"},
		{"alive without one", plain, true, nil, poison, 2, nil, "mfdlq contain --queue d (still failing: find and stop what feeds it)"},
		{"chained, not peeked", chained, false, nil, nil, 2, nil, "mfdlq classify --queue d --force (a peek counts as a receive here)"},
		{"empty", plain, false, nil, nil, 0, nil, "mfdlq verify --queue d (the DLQ is empty)"},
		{"unknown, no logs", plain, false, nil, unknown, 2, nil, "mfdlq logs --queue d --log-group LOG_GROUP (the consumer's exception decides)"},
		{"unknown with logs", plain, false, nil, unknown, 2, &LogsFound{Searched: 2}, "mfdlq classify --queue d --expect FIELD=VALUE (what the consumer accepts)"},
		{"poison", plain, false, enabled, poison, 2, nil, "fix the consumer, then redrive"},
	}
	for _, tc := range tests {
		r := &run{q: tc.q, mappings: tc.mappings, classed: tc.classed,
			res: &Result{Alive: tc.alive, Messages: tc.messages, Logs: tc.logs, Verdict: classify.VerdictUnknown, Groups: []Group{}}}
		if tc.classed != nil {
			r.summarise(tc.classed)
			r.res.Sampled = 2
		}
		if got := r.next(); got != tc.want {
			t.Errorf("%s: next %q, want %q", tc.name, got, tc.want)
		}
	}
}

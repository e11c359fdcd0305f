package alarmtriage

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/incidents3"
	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/notify"
)

// world is a handler over moto's S3 with a fake triage (it writes a
// triage event as the real step does) and a webhook that records what the
// team was told.
type world struct {
	h       *Handler
	s3      *s3.Client
	prefix  incidents3.Prefix
	now     time.Time
	triages int
	told    []string
	mu      sync.Mutex
	fail    error
}

func newWorld(t *testing.T) *world {
	t.Helper()
	c := s3.NewFromConfig(localaws.Config(t), func(o *s3.Options) { o.UsePathStyle = true })
	b := strings.ToLower(localaws.UniqueName("alarm"))
	if _, err := c.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(b)}); err != nil {
		t.Fatal(err)
	}
	w := &world{s3: c, prefix: incidents3.Prefix{Bucket: b, Path: "incidents/"}, now: time.Date(2026, 12, 7, 3, 0, 6, 0, time.UTC)}
	hook := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		var body struct{ Text string }
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &body)
		w.mu.Lock()
		w.told = append(w.told, body.Text)
		w.mu.Unlock()
	}))
	t.Cleanup(hook.Close)
	target, err := notify.Parse(hook.URL + "/hooks/SECRET")
	if err != nil {
		t.Fatal(err)
	}
	sender := notify.Sender{HTTP: hook.Client()}
	w.h = &Handler{S3: c, Prefix: w.prefix, WorkDir: t.TempDir(), Now: func() time.Time { return w.now },
		Notify: &Notifier{Target: target, Send: func(ctx context.Context, m notify.Message) error { return sender.Send(ctx, target, m) }},
		Triage: func(ctx context.Context, queue, dir string) (Result, error) {
			w.triages++
			if w.fail != nil {
				return Result{}, w.fail
			}
			ws, err := incident.Existing(dir)
			if err != nil {
				return Result{}, err
			}
			if err := ws.Append(incident.Event{Step: "triage", Time: w.now, Queue: "orders-dlq", Verdict: "poison"}); err != nil {
				return Result{}, err
			}
			return Result{Verdict: "poison", Alive: "yes", Messages: 12}, nil
		}}
	return w
}

func (w *world) invoke(t *testing.T, event []byte) (Response, error) {
	t.Helper()
	out, err := w.h.Invoke(context.Background(), event)
	if err != nil {
		return Response{}, err
	}
	var r Response
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatal(err)
	}
	return r, nil
}

func (w *world) events(t *testing.T, id string) []incident.Event {
	t.Helper()
	out, err := w.s3.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(w.prefix.Bucket), Key: aws.String(w.prefix.Path + id + "/" + incident.EventsFile)})
	if err != nil {
		t.Fatal(err)
	}
	defer out.Body.Close()
	b, _ := io.ReadAll(out.Body)
	var evs []incident.Event
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var ev incident.Event
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	return evs
}

func steps(evs []incident.Event) string {
	var s []string
	for _, ev := range evs {
		s = append(s, ev.Step)
	}
	return strings.Join(s, ",")
}

// One move into ALARM triages once and tells the team once, whatever
// EventBridge delivers twice; the alarm flapping back into ALARM within
// the cooldown joins the incident without a triage; after the cooldown a
// new episode triages again, in the same open incident.
func TestOneTriagePerEpisode(t *testing.T) {
	w := newWorld(t)
	event := eventFile(t, "alarm-single.json", "orders-dlq")
	r, err := w.invoke(t, event)
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != OutcomeTriaged || r.Verdict != "poison" || r.Alive != "yes" || r.Messages == nil || *r.Messages != 12 || !r.Notified {
		t.Fatalf("first delivery: %+v", r)
	}
	wantURL := "s3://" + w.prefix.Bucket + "/incidents/orders-dlq-20261207T0300Z"
	if r.Incident != wantURL {
		t.Fatalf("incident %s, want %s", r.Incident, wantURL)
	}
	if r, err := w.invoke(t, event); err != nil || r.Outcome != OutcomeDuplicate {
		t.Fatalf("second delivery: %+v %v, want duplicate", r, err)
	}
	w.now = w.now.Add(5 * time.Minute)
	flap := []byte(strings.ReplaceAll(string(event), "2026-12-07T03:00:05.120+0000", "2026-12-07T03:05:05.120+0000"))
	if r, err := w.invoke(t, flap); err != nil || r.Outcome != OutcomeJoined || r.Incident != wantURL {
		t.Fatalf("a flap: %+v %v, want joined", r, err)
	}
	if w.triages != 1 || len(w.told) != 1 {
		t.Fatalf("%d triages, %d notifications; want 1 and 1", w.triages, len(w.told))
	}
	if got := steps(w.events(t, "orders-dlq-20261207T0300Z")); got != "alarm,triage,notify,alarm" {
		t.Fatalf("events %s", got)
	}
	text := w.told[0]
	for _, want := range []string{"orders-dlq", "poison", "alive: yes", "12 messages", wantURL} {
		if !strings.Contains(text, want) {
			t.Fatalf("notification %q lacks %q", text, want)
		}
	}
	w.now = w.now.Add(Cooldown)
	later := []byte(strings.ReplaceAll(string(event), "2026-12-07T03:00:05.120+0000", "2026-12-07T03:40:05.120+0000"))
	if r, err := w.invoke(t, later); err != nil || r.Outcome != OutcomeTriaged || r.Incident != wantURL {
		t.Fatalf("after the cooldown: %+v %v", r, err)
	}
	if w.triages != 2 || len(w.told) != 2 {
		t.Fatalf("%d triages, %d notifications; want 2 and 2", w.triages, len(w.told))
	}
	// Each working copy went with its invocation: a warm function's /tmp
	// does not fill up.
	if left, _ := os.ReadDir(filepath.Join(w.h.WorkDir, "incidents", w.prefix.Bucket)); len(left) != 0 {
		t.Fatalf("working copies left in the function's /tmp: %v", left)
	}
}

// Events the function cannot act on end as the invocation's error of one
// line, a failed triage too (its alarm event still lands in S3); a move
// out of ALARM is skipped without error.
func TestBadEventsAreOneLineErrors(t *testing.T) {
	w := newWorld(t)
	for _, tc := range []struct {
		name, event, want string
	}{
		{name: "ec2", event: string(eventFile(t, "ec2-state.json", "")), want: "mfdlq: bad event: source"},
		{name: "composite", event: string(eventFile(t, "alarm-composite.json", "")), want: "composite alarm"},
		{name: "empty", event: "", want: "not a JSON object"},
	} {
		_, err := w.h.Invoke(context.Background(), []byte(tc.event))
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", tc.name, err, tc.want)
		}
	}
	w.fail = errors.New("queue orders-dlq does not exist\nin us-east-1")
	_, err := w.h.Invoke(context.Background(), eventFile(t, "alarm-single.json", "orders-dlq"))
	if err == nil || !strings.Contains(err.Error(), "triage orders-dlq: queue orders-dlq does not exist") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("failed triage: %v", err)
	}
	if got := steps(w.events(t, "orders-dlq-20261207T0300Z")); got != "alarm" {
		t.Fatalf("events after a failed triage: %s, want the alarm's", got)
	}
	if len(w.told) != 0 {
		t.Fatalf("told %v after a failed triage", w.told)
	}
	back := strings.Replace(string(eventFile(t, "alarm-math.json", "")), `"value": "ALARM"`, `"value": "OK"`, 1)
	if r, err := w.invoke(t, []byte(back)); err != nil || r.Outcome != OutcomeSkipped {
		t.Fatalf("a move to OK: %+v %v", r, err)
	}
	w.h.Triage = func(context.Context, string, string) (Result, error) { panic("boom") }
	w.now = w.now.Add(time.Hour)
	later := strings.ReplaceAll(string(eventFile(t, "alarm-single.json", "orders-dlq")), "03:00:05.120", "04:00:05.120")
	if _, err := w.h.Invoke(context.Background(), []byte(later)); err == nil || !strings.Contains(err.Error(), "internal error") {
		t.Fatalf("a panic: %v, want an error", err)
	}
}

// With MFDLQ_ALARM_TAG, an alarm without the tag is skipped; the event's
// propagated tags are used before the alarm's own.
func TestTagFilter(t *testing.T) {
	w := newWorld(t)
	w.h.TagKey, w.h.TagValue = "mfdlq", "triage"
	asked := 0
	w.h.Tags = func(context.Context, string) (map[string]string, error) {
		asked++
		return map[string]string{"team": "orders"}, nil
	}
	if r, err := w.invoke(t, eventFile(t, "alarm-single.json", "orders-dlq")); err != nil || r.Outcome != OutcomeSkipped || w.triages != 0 || asked != 1 {
		t.Fatalf("untagged: %+v %v (triages %d, asked %d)", r, err, w.triages, asked)
	}
	tagged := strings.Replace(string(eventFile(t, "alarm-single.json", "orders-dlq")), `"alarmName"`, `"alarmTags": {"mfdlq": "triage"}, "alarmName"`, 1)
	if r, err := w.invoke(t, []byte(tagged)); err != nil || r.Outcome != OutcomeTriaged || asked != 1 {
		t.Fatalf("tagged in the event: %+v %v (asked %d)", r, err, asked)
	}
}

// Two alarms of one DLQ firing at once (its "not empty" and its "growing"
// alarm: two episodes) start one triage and tell the team once; the other
// joins the incident. Each invocation pulls the incident before either has
// a triage event in it, so only the claim in S3 can tell them apart.
func TestTwoAlarmsAtOnceTriageOnce(t *testing.T) {
	w := newWorld(t)
	var mu sync.Mutex
	started := 0
	release := make(chan struct{})
	var once sync.Once
	open := func() { once.Do(func() { close(release) }) }
	fake := w.h.Triage
	w.h.Triage = func(ctx context.Context, queue, dir string) (Result, error) {
		mu.Lock()
		started++
		if started == 2 {
			open()
		}
		mu.Unlock()
		<-release // until the other is triaging too, or has answered
		mu.Lock()
		defer mu.Unlock()
		return fake(ctx, queue, dir)
	}
	single := string(eventFile(t, "alarm-single.json", "orders-dlq"))
	growing := strings.ReplaceAll(single, "orders-dlq-not-empty", "orders-dlq-growing")
	var wg sync.WaitGroup
	outcomes := make([]string, 2)
	for i, ev := range []string{single, growing} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer open()
			out, err := w.h.Invoke(context.Background(), []byte(ev))
			var r Response
			if err == nil {
				err = json.Unmarshal(out, &r)
			}
			if err != nil {
				outcomes[i] = "error: " + err.Error()
				return
			}
			outcomes[i] = r.Outcome
		}()
	}
	wg.Wait()
	slices.Sort(outcomes)
	if want := []string{OutcomeJoined, OutcomeTriaged}; !slices.Equal(outcomes, want) {
		t.Fatalf("outcomes %q, want %q", outcomes, want)
	}
	if started != 1 || len(w.told) != 1 {
		t.Fatalf("%d triages, told %d times; want 1 and 1", started, len(w.told))
	}
}

package notify

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

func TestMain(m *testing.M) { localaws.Wrap(m).Run() }

func TestParse(t *testing.T) {
	for in, want := range map[string]Target{
		"arn:aws:sns:eu-west-1:123456789012:oncall":        {Kind: KindSNS, Topic: "arn:aws:sns:eu-west-1:123456789012:oncall", Region: "eu-west-1", Account: "123456789012"},
		"https://hooks.slack.com/services/T0/B0/SECRET":    {Kind: KindWebhook, URL: "https://hooks.slack.com/services/T0/B0/SECRET"},
		"http://127.0.0.1:8080/hook":                       {Kind: KindWebhook, URL: "http://127.0.0.1:8080/hook"},
		" arn:aws-cn:sns:cn-north-1:123456789012:team-x  ": {Kind: KindSNS, Topic: "arn:aws-cn:sns:cn-north-1:123456789012:team-x", Region: "cn-north-1", Account: "123456789012"},
	} {
		got, err := Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "oncall", "http://hooks.slack.com/services/T0/B0/SECRET", "ftp://x/y",
		"https://user:pw@example.com/h", "arn:aws:sns:eu-west-1:123456789012:q.fifo"} {
		_, err := Parse(in)
		if err == nil {
			t.Errorf("Parse(%q) accepted it", in)
		}
		if err != nil && strings.Contains(err.Error(), "SECRET") {
			t.Errorf("Parse(%q)'s error shows the webhook's secret: %v", in, err)
		}
	}
}

func TestTargetNamesNoSecret(t *testing.T) {
	tg, _ := Parse("https://hooks.slack.com/services/T0/B0/SECRET?x=1")
	if got := tg.String(); got != "https://hooks.slack.com/…" {
		t.Errorf("String() = %q", got)
	}
}

func TestTextIsOneBoundedSanitisedLine(t *testing.T) {
	m := Message{Step: "verify", Queue: "orders-dlq\x1b[2J\n", Account: "123456789012", Region: "eu-west-1",
		Verdict: "pass", Moved: "1,204 messages redriven to orders", Report: "incidents/orders-dlq-20261202T0100Z/verify.json"}
	got := m.Text()
	want := `mfdlq verify orders-dlq\x1b[2J\n (account 123456789012, eu-west-1): pass · 1,204 messages redriven to orders · report: incidents/orders-dlq-20261202T0100Z/verify.json`
	if got != want {
		t.Errorf("Text() =\n%s\nwant\n%s", got, want)
	}
	if got := (Message{Step: "record", Queue: "q", Report: "/home/ann@example.com/report.md"}).Text(); strings.Contains(got, "ann@example.com") {
		t.Errorf("Text() keeps an e-mail address: %s", got)
	}
	m.Report = strings.Repeat("x", 2000)
	if n := len(m.Text()); n > MaxText {
		t.Errorf("Text() is %d bytes, more than %d", n, MaxText)
	}
	if s := (Message{Step: "record", Queue: "q—" + strings.Repeat("y", 200)}).Subject(); len(s) > 100 || strings.ContainsAny(s, "—\n") {
		t.Errorf("Subject() = %q", s)
	}
}

// TestWebhook posts Slack's {"text": …} once; a 500 is an error that
// names the host, never the secret path, and is not retried.
func TestWebhook(t *testing.T) {
	var posts atomic.Int64
	var got map[string]string
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		posts.Add(1)
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &got)
		if r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("content type %q", r.Header.Get("Content-Type"))
		}
		w.WriteHeader(status)
	}))
	defer srv.Close()
	tg, err := Parse(srv.URL + "/services/T0/B0/SECRET")
	if err != nil {
		t.Fatal(err)
	}
	m := Message{Step: "record", Queue: "orders-dlq", Verdict: "report written"}
	if err := (Sender{}).Send(context.Background(), tg, m); err != nil {
		t.Fatal(err)
	}
	if got["text"] != m.Text() || len(got) != 1 {
		t.Errorf("posted %v, want {text: %q}", got, m.Text())
	}
	status = http.StatusInternalServerError
	err = (Sender{}).Send(context.Background(), tg, m)
	if err == nil || !strings.Contains(err.Error(), "answered 500") || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("a 500: %v", err)
	}
	if posts.Load() != 2 {
		t.Errorf("%d posts, want 2 (one per send, no retry)", posts.Load())
	}
}

// TestSNSReachesASubscriber publishes to a moto topic with an SQS
// subscriber: exactly one message arrives, holding the text.
func TestSNSReachesASubscriber(t *testing.T) {
	ctx := context.Background()
	cfg := localaws.Config(t)
	snsc, sqsc := sns.NewFromConfig(cfg), sqs.NewFromConfig(cfg)
	name := localaws.UniqueName("notify")
	topic, err := snsc.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	qurl, err := localaws.NewSeeder(cfg).CreateQueue(ctx, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	qarn := "arn:aws:sqs:" + localaws.Region + ":" + localaws.Account + ":" + name
	if _, err := snsc.Subscribe(ctx, &sns.SubscribeInput{TopicArn: topic.TopicArn, Protocol: aws.String("sqs"), Endpoint: aws.String(qarn),
		Attributes: map[string]string{"RawMessageDelivery": "true"}}); err != nil {
		t.Fatal(err)
	}
	tg, err := Parse(aws.ToString(topic.TopicArn))
	if err != nil {
		t.Fatal(err)
	}
	m := Message{Step: "verify", Queue: "orders-dlq", Account: localaws.Account, Region: localaws.Region, Verdict: "pass"}
	s := Sender{SNS: func(context.Context, string) (SNSAPI, error) { return snsc, nil }}
	if err := s.Send(ctx, tg, m); err != nil {
		t.Fatal(err)
	}
	// moto delivers to an SQS subscriber inside Publish: once Send
	// returns, the queue holds every message it will get, so the count is
	// read at once instead of waiting on the wall clock for a second one.
	if visible, inFlight, err := localaws.NewSeeder(cfg).Depth(ctx, qurl); err != nil || visible != 1 || inFlight != 0 {
		t.Fatalf("the subscriber's queue holds %d visible, %d in flight (%v); want exactly one message", visible, inFlight, err)
	}
	out, err := sqsc.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(qurl), MaxNumberOfMessages: 10,
		WaitTimeSeconds: 1, VisibilityTimeout: 60})
	if err != nil {
		t.Fatal(err)
	}
	var bodies []string
	for _, msg := range out.Messages {
		bodies = append(bodies, aws.ToString(msg.Body))
	}
	if len(bodies) != 1 || bodies[0] != m.Text() {
		t.Errorf("subscriber got %q, want one %q", bodies, m.Text())
	}
}

// TestWebhookRedirects: a webhook's redirect to another host is not
// followed — the message never reaches a host nobody named, and the send
// is an error (issue 48: a 307 was followed, the https/loopback rule
// checked on the first URL only); a redirect within the host is.
func TestWebhookRedirects(t *testing.T) {
	var elsewhere, moved atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) }))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away/SECRET":
			http.Redirect(w, r, other.URL+"/collect", http.StatusTemporaryRedirect)
		case "/old/SECRET":
			http.Redirect(w, r, "/new/SECRET", http.StatusPermanentRedirect)
		case "/new/SECRET":
			if b, _ := io.ReadAll(r.Body); r.Method == http.MethodPost && len(b) > 0 {
				moved.Add(1)
			}
		}
	}))
	defer srv.Close()
	m := Message{Step: "verify", Queue: "orders-dlq", Verdict: "pass"}
	away, _ := Parse(srv.URL + "/away/SECRET")
	err := (Sender{HTTP: &http.Client{}}).Send(context.Background(), away, m)
	if err == nil || !strings.Contains(err.Error(), "another host: not followed") || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("a 307 to another host: %v", err)
	}
	if elsewhere.Load() != 0 {
		t.Errorf("the other host got %d requests", elsewhere.Load())
	}
	within, _ := Parse(srv.URL + "/old/SECRET")
	if err := (Sender{}).Send(context.Background(), within, m); err != nil || moved.Load() != 1 {
		t.Errorf("a redirect within the host: %v, %d posts arrived", err, moved.Load())
	}
}

// TestOtherAccount: a topic in another account than the queue's is named
// in one line; the queue's own, a webhook or an unknown account none.
func TestOtherAccount(t *testing.T) {
	topic, _ := Parse("arn:aws:sns:us-east-1:999999999999:oncall")
	hook, _ := Parse("https://hooks.example.com/x")
	if got := topic.OtherAccount("123456789012"); got != "notify: arn:aws:sns:us-east-1:999999999999:oncall is in account 999999999999, not the queue's account 123456789012: the step's end is published there" {
		t.Errorf("other account: %q", got)
	}
	for _, got := range []string{topic.OtherAccount("999999999999"), topic.OtherAccount(""), hook.OtherAccount("123456789012")} {
		if got != "" {
			t.Errorf("a line where none is due: %q", got)
		}
	}
}

// Package notify tells the team when a step ends: one short message per
// step end (verify, record; redrive once the lead wires it) to an SNS
// topic or to an HTTPS webhook that takes Slack's {"text": …}. A message
// names the queue, the account and region, what moved, the verdict and
// where the report is — never a message body, an attribute or a log line:
// a channel is read by more people than the incident directory. Every
// name in it is sanitised (untrusted) and the message is bounded.
//
// A notification that fails is the caller's warning, never a failed step:
// the step's exit status is about the queue, not the chat.
package notify

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"

	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redact"
	"github.com/mfdlq/mfdlq/untrusted"
)

// Target kinds.
const (
	KindSNS     = "sns"
	KindWebhook = "webhook"
)

// Target is where the team is told: an SNS topic, or a webhook URL.
type Target struct {
	Kind    string
	Topic   string // the topic ARN
	Region  string // the topic's region
	Account string // the topic's account
	URL     string // the webhook
}

var topicRE = regexp.MustCompile(`^arn:aws[a-z-]*:sns:([a-z0-9-]+):(\d{12}):[A-Za-z0-9_-]{1,256}(\.fifo)?$`)

// Parse reads --notify (or MFDLQ_NOTIFY): an SNS topic ARN, or an https://
// URL (http:// only to a loopback address: a local relay, a test).
func Parse(s string) (Target, error) {
	s = strings.TrimSpace(s)
	if m := topicRE.FindStringSubmatch(s); m != nil {
		if strings.HasSuffix(s, ".fifo") {
			return Target{}, errors.New("--notify: a FIFO topic needs a message group: give a standard topic")
		}
		return Target{Kind: KindSNS, Topic: s, Region: m[1], Account: m[2]}, nil
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.User != nil {
		return Target{}, fmt.Errorf("--notify %q: give an SNS topic ARN (arn:aws:sns:REGION:ACCOUNT:NAME) or an https:// webhook URL", Redact(s))
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && isLoopback(u.Hostname()):
	default:
		return Target{}, fmt.Errorf("--notify %q: a webhook must be https:// (http:// only to a loopback address)", Redact(s))
	}
	return Target{Kind: KindWebhook, URL: s}, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// String names the target for people and the incident: a webhook's path
// and query are left out, since they are its secret (Slack's
// hooks.slack.com/services/T…/B…/SECRET).
func (t Target) String() string {
	if t.Kind == KindSNS {
		return t.Topic
	}
	return Redact(t.URL)
}

// OtherAccount is the plan's one line for a topic in an account other than
// home (the queue's): publishing there tells people of another account
// what this incident is, which the operator should see named before the
// step runs. "" for a webhook, a topic of home, or an unknown home.
func (t Target) OtherAccount(home string) string {
	if t.Kind != KindSNS || home == "" || t.Account == home {
		return ""
	}
	return fmt.Sprintf("notify: %s is in account %s, not the queue's account %s: the step's end is published there", t.Topic, t.Account, home)
}

// Redact is a URL with its path and query left out.
func Redact(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return "(not a URL)"
	}
	out := u.Scheme + "://" + u.Host
	if u.Path != "" && u.Path != "/" || u.RawQuery != "" {
		out += "/…"
	}
	return out
}

// Message is one step's end, in names and figures only.
type Message struct {
	Step    string // verify, record, redrive
	Queue   string
	Account string
	Region  string
	Verdict string // pass, fail, drained, …
	Moved   string // "moved 1,204 to orders" — what the step moved, or ""
	Report  string // where the report or the incident is
}

// MaxText bounds a message: Slack shows about this much without "show
// more"; SNS takes up to 256 KB but email and SMS subscribers do not.
const MaxText = 600

// Text is the message on one line, every name sanitised, redacted (a
// path or a verdict could hold what a report would redact), at most
// MaxText bytes.
func (m Message) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "mfdlq %s %s", clean(m.Step), clean(m.Queue))
	if m.Account != "" || m.Region != "" {
		fmt.Fprintf(&b, " (account %s, %s)", clean(cmp.Or(m.Account, "-")), clean(cmp.Or(m.Region, "-")))
	}
	fmt.Fprintf(&b, ": %s", clean(cmp.Or(plural.Spoken(m.Verdict), "-")))
	if m.Moved != "" {
		fmt.Fprintf(&b, " · %s", clean(m.Moved))
	}
	if m.Report != "" {
		fmt.Fprintf(&b, " · report: %s", clean(m.Report))
	}
	return untrusted.Shorten((&redact.Redactor{}).String(b.String()), MaxText)
}

// MaxSubject is the longest SNS subject: Publish's reference says
// "must be less than 100 characters long".
const MaxSubject = 99

// Subject is the SNS subject (email subscribers' subject line): at most
// MaxSubject printable ASCII characters, as SNS requires (a longer one
// is refused, and the notification lost).
func (m Message) Subject() string {
	s := fmt.Sprintf("mfdlq %s %s: %s", m.Step, m.Queue, cmp.Or(plural.Spoken(m.Verdict), "-"))
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e {
			return '_'
		}
		return r
	}, s)
	if len(s) > MaxSubject {
		s = s[:MaxSubject-1] + "_"
	}
	return s
}

func clean(s string) string { return untrusted.Cell(s) }

// SNSAPI is the SNS call of a notification, with the SDK's signature.
type SNSAPI interface {
	Publish(ctx context.Context, in *sns.PublishInput, optFns ...func(*sns.Options)) (*sns.PublishOutput, error)
}

var _ SNSAPI = (*sns.Client)(nil)

// Timeout bounds one notification: a step's end never waits long on chat.
const Timeout = 10 * time.Second

// Sender sends to a Target.
type Sender struct {
	// SNS is the client for a topic's region.
	SNS  func(ctx context.Context, region string) (SNSAPI, error)
	HTTP *http.Client
}

// Send sends m to t once; the SDK's own retries apply to SNS, a webhook
// gets one POST (a retried chat message is a duplicate in the channel).
func (s Sender) Send(ctx context.Context, t Target, m Message) error {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	switch t.Kind {
	case KindSNS:
		c, err := s.SNS(ctx, t.Region)
		if err != nil {
			return err
		}
		_, err = c.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(t.Topic), Subject: aws.String(m.Subject()), Message: aws.String(m.Text())})
		if err != nil {
			return fmt.Errorf("publish to %s: %w", t.Topic, err)
		}
		return nil
	case KindWebhook:
		return s.post(ctx, t, m)
	}
	return fmt.Errorf("no target")
}

func (s Sender) post(ctx context.Context, t Target, m Message) error {
	body, err := json.Marshal(map[string]string{"text": m.Text()})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.URL, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("webhook %s: %w", t, err)
	}
	req.Header.Set("Content-Type", "application/json")
	hc := &http.Client{Timeout: Timeout}
	if s.HTTP != nil {
		c := *s.HTTP
		hc = &c
	}
	hc.CheckRedirect = sameTarget(req.URL)
	resp, err := hc.Do(req)
	if err != nil {
		// The error quotes the URL, with its secret: name the host only.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("webhook %s: %w", t, err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		// The reason phrase is the server's text: escaped and bounded, as
		// it goes to the terminal, events.jsonl and the report.
		return fmt.Errorf("webhook %s answered %s", t, untrusted.Shorten(clean(resp.Status), maxStatus))
	}
	return nil
}

// maxStatus bounds a webhook's status line in an error.
const maxStatus = 120

// maxRedirects bounds the redirects followed within the webhook's host.
const maxRedirects = 3

// sameTarget is a webhook's redirect policy: a redirect is followed only
// within the URL the operator gave — the same scheme and host (port
// included), no user info — so Parse's https-or-loopback rule holds for
// every request; a 307 to another host is an error, never a POST of the
// message to a host nobody named (and the step's end is not "told"). Go's
// client would follow it, re-sending the body, by default.
func sameTarget(first *url.URL) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		u := req.URL
		switch {
		case u.Scheme != first.Scheme || !strings.EqualFold(u.Host, first.Host) || u.User != nil:
			return fmt.Errorf("redirected to %s, another host: not followed (a webhook is told only at the host --notify names)", Redact(u.String()))
		case len(via) >= maxRedirects:
			return fmt.Errorf("more than %d redirects: not followed", maxRedirects)
		}
		return nil
	}
}

// Figures are a notify event's figures: which step's end was told, where
// (redacted), and whether it went. The incident records every attempt, so
// the report can say who was told.
type Figures struct {
	Step   string `json:"step"`
	Target string `json:"target"`
	Kind   string `json:"kind"`
	Sent   bool   `json:"sent"`
	Error  string `json:"error,omitempty"`
	Text   string `json:"text"`
}

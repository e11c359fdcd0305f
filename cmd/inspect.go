package cmd

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// inspectOptions are the flags of mfdlq inspect.
type inspectOptions struct {
	deps       *Deps
	Queue      string // --queue: the DLQ (name, URL or ARN)
	Max        int    // --max: distinct messages to collect
	Visibility int    // --visibility: seconds each peeked message stays hidden
	Wait       int    // --wait: long-poll seconds per receive
	Out        string // --out: JSON Lines file in the SQS API's message shape
	Force      bool   // --force: peek even though the DLQ has its own redrive policy
	Payload    string // --payload: where an in-house envelope keeps its payload

	envelope *envelope.Detector // from Payload, by validate
}

func newInspectCmd(d *Deps, runF func(*inspectOptions) error) *cobra.Command {
	opts := &inspectOptions{deps: d}
	c := &cobra.Command{
		Use:   "inspect --queue DLQ [--max N] [--visibility 5] [--out FILE]",
		Short: "Step 2: look at a DLQ's messages without harming them",
		Long: `Receive up to --max distinct messages from the DLQ with every system and
message attribute, and show them. Nothing is deleted or changed: each message
is hidden for --visibility seconds (5 by default) and then visible again.

What it changes in AWS: each receive adds one to the messages'
ApproximateReceiveCount and hides them for --visibility seconds. A DLQ that
has its own redrive policy could push peeked messages onward, so inspect
refuses it unless --force.

It writes the sample to the incident (samples.jsonl) and, with --out, to
FILE as JSON Lines in the shape of SQS's ReceiveMessage Messages[].

Each message's envelope is named (raw, sns, eventbridge, lambda-async,
lambda-destination, eventbridge-dlq, s3) and its payload's version shown;
--output json adds the envelope (kind, payload, error, origin) and the
fingerprint classify would give it. --payload JQPATH takes the payload of an
in-house envelope (docs/classify.md).

Examples:
  mfdlq inspect --queue orders-dlq
  mfdlq inspect --queue orders-dlq --max 50 --out sample.jsonl
  mfdlq inspect --queue arn:aws:sqs:eu-west-1:123456789012:orders-dlq --output json
` + exitStatusHelp,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := opts.validate(); err != nil {
				return err
			}
			if err := opts.deps.checkIncident(opts.Queue); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runInspect(c.Context(), opts)
		},
	}
	f := c.Flags()
	f.StringVar(&opts.Queue, "queue", "", "the DLQ: name, URL or ARN (required)")
	f.IntVar(&opts.Max, "max", 10, "distinct messages to collect (1-10000)")
	f.IntVar(&opts.Visibility, "visibility", 5, "seconds each peeked message stays hidden (1-300)")
	f.IntVar(&opts.Wait, "wait", 2, "long-poll seconds per receive (1-20)")
	f.StringVar(&opts.Out, "out", "", "also write the messages to FILE as JSON Lines")
	f.BoolVar(&opts.Force, "force", false, "peek even though the DLQ has its own redrive policy")
	f.StringVar(&opts.Payload, "payload", "", "jq path of the payload inside an in-house envelope, e.g. .data")
	return c
}

func (o *inspectOptions) validate() error {
	switch {
	case o.Queue == "":
		return usageErrorf("--queue is required: the DLQ's name, URL or ARN")
	case o.Max < 1 || o.Max > 10000:
		return usageErrorf("--max must be between 1 and 10000, got %d", o.Max)
	case o.Visibility < 1 || o.Visibility > 300:
		// 0 cannot be sent: the SDK omits a zero VisibilityTimeout, and SQS
		// then hides the message for the queue's default (30 s or more).
		return usageErrorf("--visibility must be between 1 and 300 seconds, got %d", o.Visibility)
	case o.Wait < 1 || o.Wait > 20:
		return usageErrorf("--wait must be between 1 and 20 seconds, got %d", o.Wait)
	}
	d, err := envelope.NewDetector(o.Payload)
	if err != nil {
		return usageErrorf("%v", err)
	}
	o.envelope = d
	return nil
}

func runInspect(ctx context.Context, o *inspectOptions) error {
	d := o.deps
	client, q, err := d.resolveQueue(ctx, o.Queue)
	if err != nil {
		return err
	}
	if q.RedrivePolicy != nil && !o.Force {
		return checkFailedf("%s has its own redrive policy (maxReceiveCount %d → %s): every peek counts as a receive and can push messages onward; pass --force to peek anyway",
			q.Name, q.RedrivePolicy.MaxReceiveCount, sqsapi.NameFromARN(q.RedrivePolicy.DeadLetterTargetArn))
	}
	d.announce("inspecting", q)
	o.warnBeforePeek(q)
	res, err := sqsapi.Peek(ctx, client, q, sqsapi.PeekOptions{
		Max: o.Max, Visibility: int32(o.Visibility), Wait: int32(o.Wait),
	})
	if err != nil {
		return fmt.Errorf("inspect %s: %w", q.Name, err)
	}
	if err := o.record(q, res); err != nil {
		return err
	}
	if err := o.render(res.Messages); err != nil {
		return err
	}
	d.infof("%d message(s) shown of %d visible, %d in flight in %s; each was hidden for %ds and is visible again after.",
		len(res.Messages), q.Depth.Visible, q.Depth.InFlight, q.Name, o.Visibility)
	d.nextStep("mfdlq classify --queue %s", q.Name)
	return nil
}

func (o *inspectOptions) warnBeforePeek(q *sqsapi.Queue) {
	d := o.deps
	d.warnf("each receive adds 1 to ApproximateReceiveCount: counts seen from now on include mfdlq's own peeks")
	if q.FIFO {
		d.warnf("%s is FIFO: only the head of each message group can be seen while its messages are in flight", q.Name)
	}
}

// record writes the sample to the incident (and --out) and appends the event.
func (o *inspectOptions) record(q *sqsapi.Queue, res sqsapi.PeekResult) error {
	d := o.deps
	ws, err := d.Workspace(q.Name)
	if err != nil {
		return err
	}
	if err := ws.WriteWith(incident.SamplesFile, writeMessages(res.Messages)); err != nil {
		return err
	}
	if o.Out != "" {
		if err := incident.WriteFileAtomic(o.Out, writeMessages(res.Messages)); err != nil {
			return fmt.Errorf("--out %s: %w", o.Out, err)
		}
	}
	ev := d.Event("inspect", q)
	ev.Inputs = map[string]any{"max": o.Max, "visibility": o.Visibility, "out": o.Out}
	ev.Figures = map[string]any{
		"sampled": len(res.Messages), "receives": res.Receives,
		"visible": q.Depth.Visible, "in_flight": q.Depth.InFlight, "delayed": q.Depth.Delayed,
		"fifo": q.FIFO,
	}
	ev.Artifact = incident.SamplesFile
	return ws.Append(ev)
}

// writeMessages streams msgs as JSON Lines in the SQS API's message shape.
func writeMessages(msgs []sqsjson.Message) func(io.Writer) error {
	return func(w io.Writer) error {
		jw := sqsjson.NewWriter(w)
		for i := range msgs {
			if err := jw.Write(&msgs[i]); err != nil {
				return err
			}
		}
		return jw.Flush()
	}
}

// inspectRow is one message of inspect's --output json.
type inspectRow struct {
	MessageID         string                                   `json:"message_id"`
	SentTime          *time.Time                               `json:"sent_time"`
	ReceiveCount      *int                                     `json:"receive_count"`
	Size              int                                      `json:"size"`
	Version           *string                                  `json:"version"` // of the payload
	Fingerprint       string                                   `json:"fingerprint"`
	Envelope          envelope.Envelope                        `json:"envelope"`
	Body              string                                   `json:"body"`
	Attributes        map[string]string                        `json:"attributes"`
	MessageAttributes map[string]sqsjson.MessageAttributeValue `json:"message_attributes"`
}

func (o *inspectOptions) render(msgs []sqsjson.Message) error {
	d := o.deps
	if d.jsonOutput() {
		rows := make([]inspectRow, 0, len(msgs))
		for i := range msgs {
			rows = append(rows, toInspectRow(&msgs[i], o.envelope))
		}
		return d.printJSON(rows)
	}
	t := tableData{Headers: []string{"MESSAGE ID", "SENT", "RECEIVES", "SIZE", "KIND", "VERSION", "PAYLOAD"}}
	for i := range msgs {
		r := toInspectRow(&msgs[i], o.envelope)
		sent, count, version := "-", "-", "-"
		if r.SentTime != nil {
			sent = r.SentTime.Format(time.RFC3339)
		}
		if r.ReceiveCount != nil {
			count = strconv.Itoa(*r.ReceiveCount)
		}
		if r.Version != nil {
			version = *r.Version
		}
		kind := string(r.Envelope.Kind)
		if r.Envelope.Wraps != "" {
			kind += "/" + string(r.Envelope.Wraps)
		}
		payload := string(r.Envelope.Payload)
		if r.Envelope.Problem != "" {
			payload = r.Envelope.Problem
		}
		t.Rows = append(t.Rows, []string{r.MessageID, sent, count, strconv.Itoa(r.Size), kind, version, excerpt(payload, 48)})
	}
	return d.printTable(t)
}

func toInspectRow(m *sqsjson.Message, d *envelope.Detector) inspectRow {
	r := inspectRow{
		MessageID: m.MessageId, Size: len(m.Body), Body: m.Body,
		Attributes: m.Attributes, MessageAttributes: m.MessageAttributes,
		Envelope: d.Detect(m),
	}
	r.Fingerprint = classify.FingerprintOf(&r.Envelope, d)
	if t, ok := m.SentTime(); ok {
		r.SentTime = &t
	}
	if n, ok := m.ReceiveCount(); ok {
		r.ReceiveCount = &n
	}
	if k, v, ok := classify.VersionOf(string(r.Envelope.Payload)); ok && r.Envelope.PayloadJSON {
		s := k + "=" + v
		r.Version = &s
	}
	if r.Attributes == nil {
		r.Attributes = map[string]string{}
	}
	if r.MessageAttributes == nil {
		r.MessageAttributes = map[string]sqsjson.MessageAttributeValue{}
	}
	return r
}

// excerpt shortens s to n runes on one line.
func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
